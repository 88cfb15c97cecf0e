/* Live frames (live.h): one stack walk instead of one VM operation per local. */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */
#include <string.h>
#include <time.h>

#include "base.h"
#include "live.h"
#include "top_frames_class.h"  /* agent/java/class_header.py, from agent/java/jdwpd/agent/TopFrames.java */

static struct {
    volatile int state;   /* 0: not tried, 1: on, -1: off */
    jobject walker;       /* a StackWalker that fills locals and shows every frame (global ref) */
    jclass top_frames, slot64;
    jmethodID top_frames_new, walk;
    /* Read as fields, not through their getters: each getter would be one more call into Java.
     * JDK 17 to 25 have them all; a VM without one has no live frames. */
    jfieldID mode;        /* LiveStackFrameInfo.mode: 1 interpreted, 2 compiled */
    jfieldID locals;      /* LiveStackFrameInfo.locals: Object[], primitives as PrimitiveSlot64 */
    jfieldID bci;         /* StackFrameInfo.bci */
    jfieldID slot_value;  /* LiveStackFrameInfo$PrimitiveSlot64.value: the slot's 64 bits */
} L;

/* A compiled frame's objects may be scalar-replaced: a walk shows them as null where JVMTI
 * reallocates them (its escape barrier).  So a compiled frame's null reference is read through
 * JVMTI; its primitives, and references the walk shows, are the frame's own (with the capability
 * to read locals, the compilers keep every local alive). */
#define MODE_INTERPRETED 1

static __thread bool walking;

bool live_walking(void) { return walking; }

static bool failed(JNIEnv *env, const char *what) {
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    base_log("live frames off (%s): locals are read through JVMTI", what);
    L.state = -1;
    return false;
}

static jclass global_class(JNIEnv *env, const char *name) {
    jclass local = (*env)->FindClass(env, name);
    if (local == NULL) return NULL;
    jclass global = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    return global;
}

/* A StackWalker of java.lang.LiveStackFrame (package-private: JNI does not check access) showing
 * hidden and reflection frames, so that its frames are the ones JVMTI counts. */
static jobject make_walker(JNIEnv *env) {
    jclass live = (*env)->FindClass(env, "java/lang/LiveStackFrame");
    jclass option = (*env)->FindClass(env, "java/lang/StackWalker$Option");
    jclass enum_set = (*env)->FindClass(env, "java/util/EnumSet");
    if (!live || !option || !enum_set) return NULL;
    jmethodID get_walker = (*env)->GetStaticMethodID(env, live, "getStackWalker",
                                                     "(Ljava/util/Set;)Ljava/lang/StackWalker;");
    jfieldID hidden = (*env)->GetStaticFieldID(env, option, "SHOW_HIDDEN_FRAMES", "Ljava/lang/StackWalker$Option;");
    jmethodID of = (*env)->GetStaticMethodID(env, enum_set, "of", "(Ljava/lang/Enum;)Ljava/util/EnumSet;");
    if (!get_walker || !hidden || !of) return NULL;
    jobject show = (*env)->GetStaticObjectField(env, option, hidden);
    jobject set = show ? (*env)->CallStaticObjectMethod(env, enum_set, of, show) : NULL;
    if ((*env)->ExceptionCheck(env)) set = NULL;  /* -Xcheck:jni: every call that may throw is checked */
    jobject walker = set ? (*env)->CallStaticObjectMethod(env, live, get_walker, set) : NULL;
    if ((*env)->ExceptionCheck(env)) walker = NULL;
    jobject global = walker ? (*env)->NewGlobalRef(env, walker) : NULL;
    (*env)->DeleteLocalRef(env, live);
    (*env)->DeleteLocalRef(env, option);
    (*env)->DeleteLocalRef(env, enum_set);
    return global;
}

bool live_enable(JNIEnv *env) {
    if (L.state) return L.state > 0;
    /* Without the capability the compilers let dead locals go and JVMTI reads none: neither may we. */
    /* -Djdwpd.liveLocals=false: every local through JVMTI (for comparisons: the tests, the bench) */
    if (base_property_is_false("jdwpd.liveLocals") || !base_g.caps.can_access_local_variables) {
        L.state = -1;
        return false;
    }
    if ((*env)->PushLocalFrame(env, 16) != 0) return failed(env, "no local frame");
    /* Defined by the boot loader, once per VM: a daemon that comes back finds it there. */
    jclass cls = (*env)->FindClass(env, "jdwpd/agent/TopFrames");
    if (cls == NULL) {
        (*env)->ExceptionClear(env);
        cls = (*env)->DefineClass(env, "jdwpd/agent/TopFrames", NULL, (const jbyte *)top_frames_class,
                                  (jsize)sizeof top_frames_class);
    }
    bool ok = cls != NULL;
    if (ok) {
        L.top_frames = (*env)->NewGlobalRef(env, cls);
        L.top_frames_new = (*env)->GetMethodID(env, cls, "<init>", "(I)V");
        L.walker = make_walker(env);
    }
    jclass stack_walker = ok ? (*env)->FindClass(env, "java/lang/StackWalker") : NULL;
    jclass frame_info = ok ? (*env)->FindClass(env, "java/lang/StackFrameInfo") : NULL;
    jclass info = ok ? (*env)->FindClass(env, "java/lang/LiveStackFrameInfo") : NULL;
    L.slot64 = ok ? global_class(env, "java/lang/LiveStackFrameInfo$PrimitiveSlot64") : NULL;
    if (stack_walker)
        L.walk = (*env)->GetMethodID(env, stack_walker, "walk", "(Ljava/util/function/Function;)Ljava/lang/Object;");
    if (frame_info) L.bci = (*env)->GetFieldID(env, frame_info, "bci", "I");
    if (info) L.mode = (*env)->GetFieldID(env, info, "mode", "I");
    if (info) L.locals = (*env)->GetFieldID(env, info, "locals", "[Ljava/lang/Object;");
    if (L.slot64) L.slot_value = (*env)->GetFieldID(env, L.slot64, "value", "J");
    ok = ok && L.top_frames_new && L.walker && L.walk && L.bci && L.mode && L.locals && L.slot_value &&
         !(*env)->ExceptionCheck(env);
    (*env)->PopLocalFrame(env, NULL);
    if (!ok) return failed(env, "this VM has no java.lang.LiveStackFrame as JDK 17-25 have it");
    L.state = 1;
    /* A first walk here, on the agent's thread, loads and links what walks use, so that none has to
     * on an application thread's event path. */
    live_view warm;
    live_load(env, &warm, 1);
    live_release(env, &warm);
    return true;
}

void live_load(JNIEnv *env, live_view *lv, jint count) {
    memset(lv, 0, sizeof *lv);
    if (L.state <= 0 || count <= 0) return;
    if (count > LIVE_MAX_FRAMES) count = LIVE_MAX_FRAMES;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    walking = true;  /* events of the walk's own Java code are not the program's */
    jobject fn = (*env)->NewObject(env, L.top_frames, L.top_frames_new, count);
    jobjectArray frames = fn ? (*env)->CallObjectMethod(env, L.walker, L.walk, fn) : NULL;
    walking = false;
    if (fn) (*env)->DeleteLocalRef(env, fn);
    if ((*env)->ExceptionCheck(env)) {  /* a StackOverflowError near the stack's end, say */
        (*env)->ExceptionClear(env);
        if (frames) (*env)->DeleteLocalRef(env, frames);
        return;
    }
    if (frames == NULL) return;
    /* Every frame's locals now, in the caller's JNI frame: readers may run inside local frames of
     * their own, which would take refs made on first use with them. */
    jint n = 0;
    while (n < count) {
        jobject f = (*env)->GetObjectArrayElement(env, frames, n);
        if (f == NULL) break;
        lv->compiled[n] = (*env)->GetIntField(env, f, L.mode) != MODE_INTERPRETED;
        lv->bci[n] = (*env)->GetIntField(env, f, L.bci);
        lv->locals[n] = (*env)->GetObjectField(env, f, L.locals);
        (*env)->DeleteLocalRef(env, f);
        if ((*env)->ExceptionCheck(env) || lv->locals[n] == NULL) {
            (*env)->ExceptionClear(env);
            lv->bci[n] = -1;
        }
        n++;
    }
    lv->frames = frames;
    lv->count = n;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    lv->cost_ns = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
}

static jobjectArray frame_locals(live_view *lv, jint depth, jlocation expect_bci) {
    if (depth < 0 || depth >= lv->count || lv->bci[depth] != (jint)expect_bci) return NULL;  /* not JVMTI's frame */
    return lv->locals[depth];
}

bool live_local(JNIEnv *env, live_view *lv, jint depth, jlocation expect_bci, jint slot, char tag, jvalue *out) {
    jobjectArray locals = frame_locals(lv, depth, expect_bci);
    /* A long or double takes two slots; a 64-bit VM keeps its value in the second one. */
    jint at = tag == 'J' || tag == 'D' ? slot + 1 : slot;
    if (locals == NULL || slot < 0 || at >= (*env)->GetArrayLength(env, locals)) return false;
    jobject v = (*env)->GetObjectArrayElement(env, locals, at);
    bool primitive = v != NULL && (*env)->IsInstanceOf(env, v, L.slot64);  /* a 32-bit VM's: JVMTI */
    if (tag == 'L') {
        if (primitive) {  /* a slot the VM holds as no reference: JVMTI decides */
            (*env)->DeleteLocalRef(env, v);
            return false;
        }
        if (v == NULL && lv->compiled[depth]) return false;  /* null, or scalar-replaced: JVMTI knows */
        out->l = v;
        return true;
    }
    if (!primitive) {
        if (v) (*env)->DeleteLocalRef(env, v);
        return false;
    }
    jlong bits = (*env)->GetLongField(env, v, L.slot_value);
    (*env)->DeleteLocalRef(env, v);
    uint32_t low = (uint32_t)(uint64_t)bits;
    switch (tag) {
    case 'J': out->j = bits; break;
    case 'D': memcpy(&out->d, &bits, sizeof out->d); break;
    case 'F': memcpy(&out->f, &low, sizeof out->f); break;
    default: out->i = (jint)low; break;  /* Z B C S I: JVMTI's GetLocalInt gives them as an int */
    }
    return true;
}

jint live_slot_count(JNIEnv *env, live_view *lv, jint depth, jlocation expect_bci) {
    jobjectArray locals = frame_locals(lv, depth, expect_bci);
    if (locals == NULL || lv->compiled[depth]) return -1;
    return (*env)->GetArrayLength(env, locals);
}

int live_slot(JNIEnv *env, live_view *lv, jint depth, jint slot, jlong *bits, jobject *obj) {
    jobjectArray locals = lv->locals[depth];
    if (slot < 0 || slot >= (*env)->GetArrayLength(env, locals)) return -1;
    jobject v = (*env)->GetObjectArrayElement(env, locals, slot);
    if (v == NULL || !(*env)->IsInstanceOf(env, v, L.slot64)) {
        *obj = v;
        return 1;
    }
    *bits = (*env)->GetLongField(env, v, L.slot_value);
    (*env)->DeleteLocalRef(env, v);
    return 0;
}

void live_release(JNIEnv *env, live_view *lv) {
    for (jint i = 0; i < lv->count && i < LIVE_MAX_FRAMES; i++)
        if (lv->locals[i]) (*env)->DeleteLocalRef(env, lv->locals[i]);
    if (lv->frames) (*env)->DeleteLocalRef(env, lv->frames);
    memset(lv, 0, sizeof *lv);
}

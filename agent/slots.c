/* Slots in place (slots.h): a breakpoint frame's locals read where the interpreter keeps them. */
#include <dlfcn.h>
#include <string.h>

#include "base.h"
#include "hotspot_gate.h"
#include "live.h"
#include "slots.h"

/* x86_64's interpreter frame, words from its frame pointer (HotSpot's frame_x86.hpp, the same in
 * JDK 17 to 25; VMStructs exports the first two, which are checked against these). */
#define FP_SENDER_SP (-1)
#define FP_LAST_SP (-2)
#define FP_METHOD (-3)
#define FP_LOCALS (-7)  /* JDK 17: slot 0's address; JDK 21+: its distance from fp, in words */
#define FP_BCP (-8)

static struct {
    int state;               /* 0: not tried, 1: on, -1: off; atomic: set after the rest */
    ptrdiff_t env_in_thread; /* JNIEnv's place in its JavaThread */
    ptrdiff_t last_fp;       /* JavaThread::_anchor + JavaFrameAnchor::_last_Java_fp */
    ptrdiff_t stack_base, stack_size;
    ptrdiff_t const_method;  /* Method::_constMethod */
    size_t const_method_size; /* the bytecodes follow the ConstMethod */
} S;

/* Set on every breakpoint change: a location learned before may be another method's now (a class
 * unloaded, another loaded at its address). */
static volatile uint32_t epoch = 1;

struct slot_kinds {
    const void *method;      /* Method*, not the jmethodID: a redefined method is another one */
    jlocation loc;
    uint32_t epoch;
    jint max_locals;
    uint64_t ref[SLOTS_KNOWN / 64], prim[SLOTS_KNOWN / 64];
};

/* Per thread: a hot loop's thread meets one or two locations; nothing shared, nothing locked. */
#define KINDS_PER_THREAD 4
static __thread slot_kinds kinds[KINDS_PER_THREAD];
static __thread unsigned kinds_next;

static bool bit(const uint64_t *set, jint i) { return (set[i / 64] >> (i % 64)) & 1; }
static void set_bit(uint64_t *set, jint i) { set[i / 64] |= (uint64_t)1 << (i % 64); }

/* ---- finding HotSpot's numbers ---------------------------------------------------------------- */

static uint64_t exported(const char *name, bool *ok) {
    const uint64_t *p = dlsym(RTLD_DEFAULT, name);
    if (p == NULL) *ok = false;
    return p ? *p : 0;
}

static ptrdiff_t struct_offset(const char *type, const char *field, bool *ok) {
    char *const *table = dlsym(RTLD_DEFAULT, "gHotSpotVMStructs");
    uint64_t type_at = exported("gHotSpotVMStructEntryTypeNameOffset", ok);
    uint64_t field_at = exported("gHotSpotVMStructEntryFieldNameOffset", ok);
    uint64_t static_at = exported("gHotSpotVMStructEntryIsStaticOffset", ok);
    uint64_t offset_at = exported("gHotSpotVMStructEntryOffsetOffset", ok);
    uint64_t stride = exported("gHotSpotVMStructEntryArrayStride", ok);
    if (table == NULL || *table == NULL || !*ok || stride == 0) return *ok = false, 0;
    for (const char *e = *table; *(const char *const *)(e + type_at) != NULL; e += stride) {
        const char *t = *(const char *const *)(e + type_at), *f = *(const char *const *)(e + field_at);
        if (f && strcmp(t, type) == 0 && strcmp(f, field) == 0 && !*(const int32_t *)(e + static_at))
            return (ptrdiff_t)*(const uint64_t *)(e + offset_at);
    }
    return *ok = false, 0;
}

static size_t type_size(const char *type, bool *ok) {
    char *const *table = dlsym(RTLD_DEFAULT, "gHotSpotVMTypes");
    uint64_t name_at = exported("gHotSpotVMTypeEntryTypeNameOffset", ok);
    uint64_t size_at = exported("gHotSpotVMTypeEntrySizeOffset", ok);
    uint64_t stride = exported("gHotSpotVMTypeEntryArrayStride", ok);
    if (table == NULL || *table == NULL || !*ok || stride == 0) return *ok = false, 0;
    for (const char *e = *table; *(const char *const *)(e + name_at) != NULL; e += stride)
        if (strcmp(*(const char *const *)(e + name_at), type) == 0) return (size_t)*(const uint64_t *)(e + size_at);
    return *ok = false, 0;
}

static int32_t int_constant(const char *name, bool *ok) {
    char *const *table = dlsym(RTLD_DEFAULT, "gHotSpotVMIntConstants");
    uint64_t name_at = exported("gHotSpotVMIntConstantEntryNameOffset", ok);
    uint64_t value_at = exported("gHotSpotVMIntConstantEntryValueOffset", ok);
    uint64_t stride = exported("gHotSpotVMIntConstantEntryArrayStride", ok);
    if (table == NULL || *table == NULL || !*ok || stride == 0) return *ok = false, 0;
    for (const char *e = *table; *(const char *const *)(e + name_at) != NULL; e += stride)
        if (strcmp(*(const char *const *)(e + name_at), name) == 0) return *(const int32_t *)(e + value_at);
    return *ok = false, 0;
}

static bool off(const char *why) {
    if (why) base_log("locals in place off (%s): a walk reads them", why);
    __atomic_store_n(&S.state, -1, __ATOMIC_RELEASE);
    return false;
}

static int state(void) { return __atomic_load_n(&S.state, __ATOMIC_ACQUIRE); }

bool slots_enable(JNIEnv *env) {
    if (state()) return state() > 0;
#if !defined(__x86_64__)
    (void)env;
    return off("the interpreter frame layout is known for x86_64 only");
#else
    if (base_property_is_false("jdwpd.frameLocals")) return off(NULL);  /* for comparisons: tests, bench */
    /* Before the first read of anything HotSpot's: on a JDK the suites do not run this file on,
     * none of what follows is known to mean what it meant (hotspot_gate.h). */
    char why[160];
    if (!hotspot_gate_open(why, sizeof why)) return off(why);
    bool ok = true;
    ptrdiff_t anchor = struct_offset("JavaThread", "_anchor", &ok);
    ptrdiff_t fp = struct_offset("JavaFrameAnchor", "_last_Java_fp", &ok);
    S.stack_base = struct_offset("JavaThread", "_stack_base", &ok);
    S.stack_size = struct_offset("JavaThread", "_stack_size", &ok);
    S.const_method = struct_offset("Method", "_constMethod", &ok);
    S.const_method_size = type_size("ConstMethod", &ok);
    if (!ok) return off("this VM exports no HotSpot VMStructs as JDK 17-25 do");
    if (int_constant("frame::interpreter_frame_sender_sp_offset", &ok) != FP_SENDER_SP ||
        int_constant("frame::interpreter_frame_last_sp_offset", &ok) != FP_LAST_SP || !ok)
        return off("this VM's interpreter frames are not laid out as JDK 17-25's");
    S.last_fp = anchor + fp;
    /* Where the JNIEnv sits in its thread: java.lang.Thread.eetop holds the JavaThread's address. */
    jthread current = NULL;
    if ((*base_g.jvmti)->GetCurrentThread(base_g.jvmti, &current) != JVMTI_ERROR_NONE || current == NULL)
        return off("the enabling thread is no Java thread");
    jclass thread_class = (*env)->FindClass(env, "java/lang/Thread");
    jfieldID eetop = thread_class ? (*env)->GetFieldID(env, thread_class, "eetop", "J") : NULL;
    jlong self = eetop ? (*env)->GetLongField(env, current, eetop) : 0;
    if (thread_class) (*env)->DeleteLocalRef(env, thread_class);
    (*env)->DeleteLocalRef(env, current);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    S.env_in_thread = (const char *)env - (const char *)(intptr_t)self;
    if (self == 0 || S.env_in_thread <= 0 || S.env_in_thread > 64 * 1024)
        return off("no JavaThread address in java.lang.Thread.eetop");
    __atomic_store_n(&S.state, 1, __ATOMIC_RELEASE);
    return true;
#endif
}

void slots_forget_all(void) { __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE); }

/* ---- reading ------------------------------------------------------------------------------------ */

static slot_kinds *kinds_of(const void *method, jlocation loc) {
    uint32_t now = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
    for (int i = 0; i < KINDS_PER_THREAD; i++)
        if (kinds[i].method == method && kinds[i].loc == loc && kinds[i].epoch == now) return &kinds[i];
    return NULL;
}

bool slots_open(JNIEnv *env, jmethodID method, jlocation loc, slots_view *v) {
    memset(v, 0, sizeof *v);
    /* Not enabled (hotspot_gate.h refused, or not tried yet): nothing below is read, the jmethodID
     * least of all (a Method** only up to JDK 25). */
    if (state() <= 0 || method == NULL || loc < 0) return false;
    const char *thread = (const char *)env - S.env_in_thread;
    intptr_t *fp = *(intptr_t *const *)(thread + S.last_fp);
    const char *base = *(const char *const *)(thread + S.stack_base);
    size_t size = *(const size_t *)(thread + S.stack_size);
    /* The frame is above this function's own (the stack grows down) and inside the thread's stack. */
    const char *here = (const char *)&fp;
    if (fp == NULL || ((uintptr_t)fp & 7) || (const char *)fp <= here || (const char *)fp >= base ||
        (size_t)(base - (const char *)fp) > size)
        return false;
    const void *m = *(const void *const *)method;  /* a jmethodID points at its Method* (JDK 17-25) */
    if ((const void *)fp[FP_METHOD] != m) return false;
    const char *const_method = *(const char *const *)((const char *)m + S.const_method);
    if ((const char *)fp[FP_BCP] != const_method + S.const_method_size + loc) return false;
    const slot_kinds *known = kinds_of(m, loc);
    jint max_locals = known ? known->max_locals : 0;  /* no JVMTI call once the location is known */
    if (!known && (*base_g.jvmti)->GetMaxLocals(base_g.jvmti, method, &max_locals) != JVMTI_ERROR_NONE) return false;
    if (max_locals <= 0) return false;
    /* The interpreter puts the last local just above the return address and saved fp. */
    intptr_t *locals = fp + max_locals + 1;
    if (fp[FP_LOCALS] != max_locals + 1 && fp[FP_LOCALS] != (intptr_t)locals) return false;
    if ((const char *)(locals + 1) > base) return false;
    v->locals = locals;
    v->max_locals = max_locals;
    v->method = m;
    v->loc = loc;
    v->kinds = known;
    return true;
}

static bool same_bits(const slots_view *v, jint slot, jlong walked) {
    /* An int keeps only its low half; a long's or double's value is all of its second slot. */
    return (uint32_t)(uint64_t)v->locals[-slot] == (uint32_t)(uint64_t)walked;
}

void slots_learn(JNIEnv *env, slots_view *v, live_view *lv, jlocation loc) {
    if (v->locals == NULL || state() <= 0) return;
    jint n = live_slot_count(env, lv, 0, loc);
    if (n < 0) return;  /* the walk saw another frame, or no interpreted one: nothing to learn */
    if (n != v->max_locals) {
        off("a walk saw another number of locals than the frame has");
        v->locals = NULL;
        return;
    }
    slot_kinds k;
    memset(&k, 0, sizeof k);
    k.method = v->method;
    k.loc = loc;
    k.epoch = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
    k.max_locals = n;
    bool same = true;
    for (jint s = 0; s < n && s < SLOTS_KNOWN && same; s++) {
        jlong bits = 0;
        jobject obj = NULL;
        int kind = live_slot(env, lv, 0, s, &bits, &obj);
        if (kind == 1) {
            set_bit(k.ref, s);
            same = (*env)->IsSameObject(env, obj, (jobject)(v->locals - s));
            if (obj) (*env)->DeleteLocalRef(env, obj);
        } else if (kind == 0) {
            set_bit(k.prim, s);
            same = same_bits(v, s, bits);
        }
    }
    if (!same) {
        off("a slot read in place differs from the walk's");
        v->locals = NULL;
        return;
    }
    slot_kinds *slot = &kinds[kinds_next++ % KINDS_PER_THREAD];
    *slot = k;
    v->kinds = slot;
}

bool slots_local(JNIEnv *env, const slots_view *v, jint slot, char tag, jvalue *out) {
    const slot_kinds *k = v->kinds;
    jint at = tag == 'J' || tag == 'D' ? slot + 1 : slot;  /* a 64-bit VM keeps the value in the second */
    if (v->locals == NULL || k == NULL || slot < 0 || at >= v->max_locals || at >= SLOTS_KNOWN) return false;
    if (tag == 'L') {
        if (!bit(k->ref, slot)) return false;
        /* A pointer to a slot of the thread's own last Java frame is a JNI handle to HotSpot, as a
         * native method's arguments are: resolved in the VM, after any collection moved it. */
        out->l = (*env)->NewLocalRef(env, (jobject)(v->locals - slot));
        return true;
    }
    if (!bit(k->prim, slot) || !bit(k->prim, at)) return false;
    uint64_t bits = (uint64_t)v->locals[-at];
    uint32_t low = (uint32_t)bits;
    switch (tag) {
    case 'J': out->j = (jlong)bits; break;
    case 'D': memcpy(&out->d, &bits, sizeof out->d); break;
    case 'F': memcpy(&out->f, &low, sizeof out->f); break;
    case 'Z': case 'B': case 'C': case 'S': case 'I': out->i = (jint)low; break;
    default: return false;
    }
    return true;
}

/* INVOKE: the executor hands the call to the thread parked at an event; that thread runs it (JNI),
 * sends the reply itself and stays parked.  The executor never waits for an invoke. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "invoke.h"
#include "link.h"
#include "objects.h"
#include "threads.h"
#include "values.h"

typedef struct invoke_req {
    uint32_t reply_id;
    uint8_t kind;
    int options;
    jclass cls;        /* global */
    jobject object;    /* global */
    jmethodID method;
    uint8_t ret_tag;
    jint nargs;
    jvalue *args;      /* objects as global refs */
    uint8_t *tags;
    bool running;
    /* The debugger that asked it left (INVOKE_DETACH): what its end gives back is less what that
     * debugger held, as the reference's detached invoke suspends nothing again. */
    bool detached;
    bool drop_all;
    int drop_count;
} invoke_req;

static void free_req(JNIEnv *env, invoke_req *r) {
    if (r->cls) (*env)->DeleteGlobalRef(env, r->cls);
    if (r->object) (*env)->DeleteGlobalRef(env, r->object);
    for (jint i = 0; i < r->nargs; i++)
        if (values_tag_is_object(r->tags[i]) && r->args[i].l) (*env)->DeleteGlobalRef(env, r->args[i].l);
    free(r->args);
    free(r->tags);
    free(r);
}

/* Parameter tags from a method signature; NULL on a malformed one. */
static uint8_t *param_tags(const char *sig, jint *n, uint8_t *ret) {
    size_t len = strlen(sig);
    uint8_t *tags = malloc(len + 1);
    if (tags == NULL || sig[0] != '(') {
        free(tags);
        return NULL;
    }
    jint k = 0;
    const char *p = sig + 1;
    while (*p && *p != ')') {
        const char *start = p;
        while (*p == '[') p++;
        if (*p == 'L') {
            p = strchr(p, ';');
            if (p == NULL) break;
        }
        tags[k++] = *start == '[' ? TAG_ARRAY : values_tag_of_signature(start);
        p++;
    }
    if (p == NULL || *p != ')') {
        free(tags);
        return NULL;
    }
    *ret = values_tag_of_signature(p + 1);
    *n = k;
    return tags;
}

int invoke_invoke(JNIEnv *env, uint32_t req_id, inbuf *in) {
    uint64_t thread_id = buf_in_u64(in);
    uint8_t kind = buf_in_u8(in);
    uint64_t cls_id = buf_in_u64(in), obj_id_ = buf_in_u64(in), mid = buf_in_u64(in);
    int32_t options = buf_in_i32(in);
    uint32_t nargs = buf_in_u32(in);
    if (in->bad || nargs > in->len) return LS_BAD_MESSAGE;
    if ((*env)->PushLocalFrame(env, 32 + (jint)nargs) != 0) return JVMTI_ERROR_OUT_OF_MEMORY;
    invoke_req *r = calloc(1, sizeof *r);
    int st = r ? 0 : JVMTI_ERROR_OUT_OF_MEMORY;
    jthread thread = NULL;
    thread_rec *t = NULL;
    char *name = NULL, *sig = NULL;
    if (!st) {
        r->reply_id = req_id;
        r->kind = kind;
        r->options = options;
        r->args = calloc(nargs + 1, sizeof *r->args);
        r->tags = calloc(nargs + 1, 1);
        if (r->args == NULL || r->tags == NULL) st = JVMTI_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < nargs && !st; i++) {
        jvalue v;
        st = values_in_value(in, env, &r->tags[i], &v);
        if (!st && values_tag_is_object(r->tags[i]) && v.l) v.l = (*env)->NewGlobalRef(env, v.l);
        r->args[i] = v;
        r->nargs = (jint)i + 1;
    }
    if (!st && !buf_in_done(in)) st = LS_BAD_MESSAGE;
    if (!st && (kind < IK_STATIC || kind > IK_NEW_INSTANCE)) st = JVMTI_ERROR_ILLEGAL_ARGUMENT;
    if (!st) st = objects_method_check(mid, &r->method);
    if (!st) st = threads_from_id(env, thread_id, &thread, &t);
    jclass decl = NULL;
    jint mods = 0;
    if (!st) st = (int)(*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, r->method, &decl);
    if (!st) st = (int)(*base_g.jvmti)->GetMethodModifiers(base_g.jvmti, r->method, &mods);
    if (!st) st = (int)(*base_g.jvmti)->GetMethodName(base_g.jvmti, r->method, &name, &sig, NULL);
    jint nparams = 0;
    uint8_t *ptags = NULL;
    if (!st) {
        ptags = param_tags(sig, &nparams, &r->ret_tag);
        if (ptags == NULL) st = LS_INTERNAL;
        else if (nparams != r->nargs) st = JVMTI_ERROR_ILLEGAL_ARGUMENT;
        for (jint i = 0; !st && i < nparams; i++)
            if (!values_value_fits(ptags[i], r->tags[i])) st = JVMTI_ERROR_TYPE_MISMATCH;
        if (!st) memcpy(r->tags, ptags, (size_t)nparams);  /* the declared tags drive the call */
        free(ptags);
    }
    /* Object arguments must be instances of their parameter types: JNI passes them unchecked. */
    if (!st) {
        const char *p = strchr(sig, '(') + 1;
        char *one = malloc(strlen(sig) + 1);
        for (jint i = 0; !st && i < nparams && one; i++) {
            const char *start = p;
            while (*p == '[') p++;
            if (*p == 'L') p = strchr(p, ';');
            p++;
            memcpy(one, start, (size_t)(p - start));
            one[p - start] = 0;
            if (values_tag_is_object(r->tags[i])) st = values_object_fits(env, r->args[i].l, one, decl);
        }
        if (one == NULL) st = JVMTI_ERROR_OUT_OF_MEMORY;
        free(one);
    }
    bool is_static = (mods & 0x0008) != 0;
    bool is_ctor = name && strcmp(name, "<init>") == 0;
    if (!st) {
        jclass cls = NULL;
        jobject obj = NULL;
        if (kind == IK_STATIC || kind == IK_NEW_INSTANCE) {
            st = values_class_from_id(env, cls_id, &cls);
            if (!st && !(*env)->IsAssignableFrom(env, cls, decl)) st = JVMTI_ERROR_INVALID_METHODID;
            if (!st && kind == IK_STATIC && (!is_static || is_ctor)) st = JVMTI_ERROR_INVALID_METHODID;
            if (!st && kind == IK_NEW_INSTANCE && !is_ctor) st = JVMTI_ERROR_INVALID_METHODID;
        } else {
            st = values_object_from_id(env, obj_id_, &obj);
            if (!st && (is_static || is_ctor)) st = JVMTI_ERROR_INVALID_METHODID;
            if (!st && !(*env)->IsInstanceOf(env, obj, decl)) st = JVMTI_ERROR_INVALID_METHODID;
            cls = decl;
        }
        if (!st && (mods & 0x0400) && kind == IK_NONVIRTUAL) st = JVMTI_ERROR_INVALID_METHODID;  /* abstract */
        if (!st) {
            r->cls = (*env)->NewGlobalRef(env, cls);
            if (obj) r->object = (*env)->NewGlobalRef(env, obj);
        }
    }
    base_jvmti_free(name);
    base_jvmti_free(sig);
    if (!st) {
        base_lock_enter();
        /* at_event is set before the event leaves; the thread runs the invoke once it has parked. */
        if (!(t->at_event && t->suspend_count > 0)) st = LS_NOT_AT_EVENT;
        else if (t->invoke) st = LS_BUSY;
        else {
            t->invoke = r;
            if (t->jvmti_suspended) {
                (*base_g.jvmti)->ResumeThread(base_g.jvmti, thread);
                t->jvmti_suspended = false;
            }
            base_lock_notify_all();
        }
        base_lock_exit();
    }
    if (st && r) free_req(env, r);
    (*env)->PopLocalFrame(env, NULL);
    return st;
}

static jvalue call(JNIEnv *env, invoke_req *r) {
    jvalue v;
    memset(&v, 0, sizeof v);
    jvalue *a = r->args;
    jmethodID m = r->method;
    if (r->kind == IK_NEW_INSTANCE) {
        v.l = (*env)->NewObjectA(env, r->cls, m, a);
        return v;
    }
    if (r->kind == IK_STATIC) {
        switch (r->ret_tag) {
        case TAG_VOID: (*env)->CallStaticVoidMethodA(env, r->cls, m, a); break;
        case TAG_BOOLEAN: v.z = (*env)->CallStaticBooleanMethodA(env, r->cls, m, a); break;
        case TAG_BYTE: v.b = (*env)->CallStaticByteMethodA(env, r->cls, m, a); break;
        case TAG_CHAR: v.c = (*env)->CallStaticCharMethodA(env, r->cls, m, a); break;
        case TAG_SHORT: v.s = (*env)->CallStaticShortMethodA(env, r->cls, m, a); break;
        case TAG_INT: v.i = (*env)->CallStaticIntMethodA(env, r->cls, m, a); break;
        case TAG_LONG: v.j = (*env)->CallStaticLongMethodA(env, r->cls, m, a); break;
        case TAG_FLOAT: v.f = (*env)->CallStaticFloatMethodA(env, r->cls, m, a); break;
        case TAG_DOUBLE: v.d = (*env)->CallStaticDoubleMethodA(env, r->cls, m, a); break;
        default: v.l = (*env)->CallStaticObjectMethodA(env, r->cls, m, a); break;
        }
        return v;
    }
    jobject o = r->object;
    if (r->kind == IK_NONVIRTUAL || (r->options & IO_INVOKE_NONVIRTUAL)) {
        switch (r->ret_tag) {
        case TAG_VOID: (*env)->CallNonvirtualVoidMethodA(env, o, r->cls, m, a); break;
        case TAG_BOOLEAN: v.z = (*env)->CallNonvirtualBooleanMethodA(env, o, r->cls, m, a); break;
        case TAG_BYTE: v.b = (*env)->CallNonvirtualByteMethodA(env, o, r->cls, m, a); break;
        case TAG_CHAR: v.c = (*env)->CallNonvirtualCharMethodA(env, o, r->cls, m, a); break;
        case TAG_SHORT: v.s = (*env)->CallNonvirtualShortMethodA(env, o, r->cls, m, a); break;
        case TAG_INT: v.i = (*env)->CallNonvirtualIntMethodA(env, o, r->cls, m, a); break;
        case TAG_LONG: v.j = (*env)->CallNonvirtualLongMethodA(env, o, r->cls, m, a); break;
        case TAG_FLOAT: v.f = (*env)->CallNonvirtualFloatMethodA(env, o, r->cls, m, a); break;
        case TAG_DOUBLE: v.d = (*env)->CallNonvirtualDoubleMethodA(env, o, r->cls, m, a); break;
        default: v.l = (*env)->CallNonvirtualObjectMethodA(env, o, r->cls, m, a); break;
        }
        return v;
    }
    switch (r->ret_tag) {
    case TAG_VOID: (*env)->CallVoidMethodA(env, o, m, a); break;
    case TAG_BOOLEAN: v.z = (*env)->CallBooleanMethodA(env, o, m, a); break;
    case TAG_BYTE: v.b = (*env)->CallByteMethodA(env, o, m, a); break;
    case TAG_CHAR: v.c = (*env)->CallCharMethodA(env, o, m, a); break;
    case TAG_SHORT: v.s = (*env)->CallShortMethodA(env, o, m, a); break;
    case TAG_INT: v.i = (*env)->CallIntMethodA(env, o, m, a); break;
    case TAG_LONG: v.j = (*env)->CallLongMethodA(env, o, m, a); break;
    case TAG_FLOAT: v.f = (*env)->CallFloatMethodA(env, o, m, a); break;
    case TAG_DOUBLE: v.d = (*env)->CallDoubleMethodA(env, o, m, a); break;
    default: v.l = (*env)->CallObjectMethodA(env, o, m, a); break;
    }
    return v;
}

bool invoke_is_runnable(thread_rec *t) { return t->invoke != NULL && !t->invoke->running; }

/* What an invoke sets aside of its thread while the call runs. */
typedef struct {
    bool single;
    int suspend_count;
    bool at_event;
    uint64_t link_generation;
} invoke_saved;

/* The call is over: the other threads suspended again (unless single-threaded), the invoking thread's
 * count and event state given back.  Takes the lock. */
static void invoke_settle(JNIEnv *env, thread_rec *t, invoke_req *r, invoke_saved saved) {
    base_lock_enter();
    if (r->detached) {
        saved.suspend_count = saved.suspend_count > r->drop_count ? saved.suspend_count - r->drop_count : 0;
        if (r->drop_all) saved.single = true;
        if (saved.suspend_count == 0) saved.at_event = false;
    }
    /* If the link went (and came back) during the call, its reset already released everything:
     * suspending again would leave threads stopped for a daemon that no longer knows them. */
    bool same_link = link_connected() && link_generation() == saved.link_generation;
    if (!same_link) saved.suspend_count = 0;
    if (!saved.single && same_link) threads_suspend_all(env, t);
    t->suspend_count += saved.suspend_count;
    t->at_event = saved.at_event;
    t->parked = true;
    t->invoke = NULL;
    base_lock_exit();
}

void invoke_run_pending(JNIEnv *env, thread_rec *t) {
    invoke_req *r = t->invoke;
    if (r == NULL || r->running) return;
    r->running = true;
    bool single = (r->options & IO_INVOKE_SINGLE_THREADED) != 0;
    /* The invoking thread runs with count 0 (events inside the call may suspend it anew); the
     * others are resumed around the call unless single-threaded, as the reference does. */
    invoke_saved saved = {single, t->suspend_count, t->at_event, link_generation()};
    t->suspend_count = 0;
    t->frame_generation++;  /* the thread runs: its frame ids go, one generation on, as in the reference */
    t->parked = false;
    if (!single) threads_resume_all(env);
    base_lock_exit();

    if ((*env)->PushLocalFrame(env, 16) == 0) {
        jvalue v = call(env, r);
        jthrowable exc = (*env)->ExceptionOccurred(env);
        if (exc) (*env)->ExceptionClear(env);
        outbuf out;
        buf_out_init(&out, 64);
        buf_out_frame_begin(&out);
        if (exc) {
            memset(&v, 0, sizeof v);
        }
        values_out_jvalue(&out, env, r->kind == IK_NEW_INSTANCE ? TAG_OBJECT : r->ret_tag, v);
        values_out_tagged(&out, env, exc);
        buf_out_frame_end(&out, r->reply_id, LK_INVOKE, 0);
        /* Re-suspend (and so re-pin every id) while the result is still held by a local ref. */
        invoke_settle(env, t, r, saved);
        (*env)->PopLocalFrame(env, NULL);
        /* Reply after the re-suspension, so the debugger never sees a half-resumed VM. */
        link_send(&out, false);
    } else {
        (*env)->ExceptionClear(env);
        invoke_settle(env, t, r, saved);
        outbuf out;
        buf_out_init(&out, LINK_HEADER_SIZE);
        buf_out_frame_begin(&out);
        buf_out_frame_end(&out, r->reply_id, LK_INVOKE, JVMTI_ERROR_OUT_OF_MEMORY);
        link_send(&out, false);
    }
    free_req(env, r);
    base_lock_enter();
}

void invoke_drop_pending(JNIEnv *env, thread_rec *t) {
    /* Lock held.  An invoke not yet started is dropped when the link goes: nobody awaits its reply, and
     * a call the debugger asked of a VM it has left must not run. */
    if (t->invoke != NULL && !t->invoke->running) {
        free_req(env, t->invoke);
        t->invoke = NULL;
    }
}

/* INVOKE_DETACH: the debugger of an invoke on this thread left.  The executor and the call's end
 * (invoke_settle) both hold the lock: either the call has ended (state 0, its suspensions are back
 * and the daemon's undo takes them) or its end will honour the drop (state 1).  A call not started
 * yet never starts (state 2): the debugger that asked it is gone. */
int invoke_invoke_detach(JNIEnv *env, inbuf *in, outbuf *out) {
    uint64_t thread_id = buf_in_u64(in);
    int32_t drop_count = buf_in_i32(in);
    uint8_t drop_all = buf_in_u8(in);
    PARSED(in);
    jthread thread = NULL;
    thread_rec *t = NULL;
    int st = threads_from_id(env, thread_id, &thread, &t);
    if (st) return st;
    uint8_t state = 0;
    uint32_t dropped_reply = 0;
    base_lock_enter();
    invoke_req *r = t->invoke;
    if (r != NULL && r->running) {
        r->detached = true;
        r->drop_all = drop_all != 0;
        r->drop_count = drop_count > 0 ? drop_count : 0;
        state = 1;
    } else if (r != NULL) {
        dropped_reply = r->reply_id;
        invoke_drop_pending(env, t);
        state = 2;
    }
    base_lock_exit();
    if (state == 2) {
        outbuf b;
        buf_out_init(&b, LINK_HEADER_SIZE);
        buf_out_frame_begin(&b);
        buf_out_frame_end(&b, dropped_reply, LK_INVOKE, LS_NOT_AT_EVENT);
        link_send(&b, false);
    }
    buf_out_u8(out, state);
    return 0;
}

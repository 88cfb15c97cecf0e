/* Executors: threads and frames. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "evmode.h"
#include "exec_threads.h"
#include "objects.h"
#include "threads.h"
#include "values.h"
#include "vthreads.h"

#define THREAD_ARG(th, rec)                                       \
    jthread th;                                                   \
    thread_rec *rec;                                              \
    {                                                             \
        uint64_t tid_ = buf_in_u64(in);                               \
        if (in->bad) return LS_BAD_MESSAGE;                       \
        int st_ = threads_from_id(env, tid_, &th, &rec);           \
        if (st_) return st_;                                      \
    }

/* Stack requests: the count first (the reference's validateSuspendedThread), so a thread that has ended
 * answers NOT_SUSPENDED until a debugger suspends it, and INVALID_THREAD while one does (its stack is
 * gone: what JVMTI answers for it). */
static int need_suspended(jthread th, thread_rec *t) {
    base_lock_enter();
    bool s = t->suspend_count > 0;
    base_lock_exit();
    if (!s) return LS_NOT_SUSPENDED;
    jint state = 0;
    CHECK((*base_g.jvmti)->GetThreadState(base_g.jvmti, th, &state));
    return state & JVMTI_THREAD_STATE_ALIVE ? 0 : JVMTI_ERROR_INVALID_THREAD;
}

/* Some JVMTI functions (PopFrame, ForceEarlyReturn) insist on a JVMTI-suspended thread; a thread
 * parked in our callback is in a raw-monitor wait, where suspending it is safe. */
static int hard_suspend(jthread th, thread_rec *t) {
    int st = 0;
    base_lock_enter();
    /* A thread stopped by an event may still be on its way to its park: give it a moment. */
    for (int waited = 0; t->suspend_count > 0 && t->in_agent > 0 && !t->parked && waited < 2000; waited += 5)
        base_lock_wait(5);
    if (t->suspend_count == 0) {
        st = LS_NOT_SUSPENDED;
    } else if (!t->jvmti_suspended) {
        if (!t->parked) {
            st = JVMTI_ERROR_THREAD_NOT_SUSPENDED;
        } else {
            jvmtiError err = (*base_g.jvmti)->SuspendThread(base_g.jvmti, th);
            if (err == JVMTI_ERROR_NONE) t->jvmti_suspended = true;
            else st = (int)err;
        }
    }
    base_lock_exit();
    return st;
}

int exec_threads_thread_info(JNIEnv *env, inbuf *in, outbuf *out) {
    THREAD_ARG(th, t);
    PARSED(in);
    (void)t;
    jvmtiThreadInfo info;
    CHECK((*base_g.jvmti)->GetThreadInfo(base_g.jvmti, th, &info));
    buf_out_str(out, info.name);
    buf_out_u64(out, objects_id(env, info.thread_group));
    buf_out_u32(out, (uint32_t)info.priority);
    buf_out_u8(out, info.is_daemon ? 1 : 0);
    buf_out_u8(out, vthreads_is_virtual(env, th));
    base_jvmti_free(info.name);
    return 0;
}

int exec_threads_thread_status(JNIEnv *env, inbuf *in, outbuf *out) {
    THREAD_ARG(th, t);
    PARSED(in);
    jint state;
    CHECK((*base_g.jvmti)->GetThreadState(base_g.jvmti, th, &state));
    base_lock_enter();
    int count = t->suspend_count;
    bool at_event = t->at_event && count > 0;  /* set before the event is sent, before it parks */
    uint64_t generation = t->frame_generation;
    base_lock_exit();
    /* A parked thread is suspended as far as a debugger can tell, as with the reference agent; an ended
     * one is not, whatever its count (the reference reads that flag from JVMTI). */
    if (count > 0 && (state & JVMTI_THREAD_STATE_ALIVE)) state |= JVMTI_THREAD_STATE_SUSPENDED;
    if (!(state & JVMTI_THREAD_STATE_ALIVE)) at_event = false;
    buf_out_u32(out, (uint32_t)state);
    buf_out_u32(out, (uint32_t)count);
    buf_out_u8(out, at_event);
    buf_out_u64(out, generation);
    return 0;
}

int exec_threads_thread_suspend(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    THREAD_ARG(th, t);
    PARSED(in);
    (void)th;
    if (!base_g.caps.can_suspend) return LS_NOT_CAPABLE;
    base_lock_enter();
    int st = threads_suspend(env, t);
    base_lock_exit();
    return st;
}

int exec_threads_thread_resume(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    THREAD_ARG(th, t);
    PARSED(in);
    (void)th;
    base_lock_enter();
    int st = threads_resume(env, t);
    base_lock_exit();
    return st;
}

int exec_threads_thread_frames(JNIEnv *env, inbuf *in, outbuf *out) {
    THREAD_ARG(th, t);
    jint start = buf_in_i32(in), length = buf_in_i32(in);
    PARSED(in);
    int ns = need_suspended(th, t);
    if (ns) return ns;
    jint count;
    CHECK((*base_g.jvmti)->GetFrameCount(base_g.jvmti, th, &count));
    if (start < 0 || (start > count - 1 && start != 0) || start > count) return JE_INVALID_INDEX;
    if (length == -1) length = count - start;
    if (length < 0 || length > count - start) return JE_INVALID_LENGTH;
    jvmtiFrameInfo *frames = calloc((size_t)length + 1, sizeof *frames);
    if (frames == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    jint got = 0;
    jvmtiError err = length ? (*base_g.jvmti)->GetStackTrace(base_g.jvmti, th, start, length, frames, &got) : JVMTI_ERROR_NONE;
    if (err != JVMTI_ERROR_NONE) {
        free(frames);
        return (int)err;
    }
    buf_out_u32(out, (uint32_t)got);
    for (jint i = 0; i < got; i++) {
        jvmtiError e2 = values_out_frame(out, env, frames[i].method, frames[i].location);
        if (e2 != JVMTI_ERROR_NONE) {
            free(frames);
            return (int)e2;
        }
    }
    free(frames);
    base_lock_enter();
    buf_out_u64(out, t->frame_generation);
    base_lock_exit();
    return 0;
}

int exec_threads_thread_frame_count(JNIEnv *env, inbuf *in, outbuf *out) {
    THREAD_ARG(th, t);
    PARSED(in);
    int ns = need_suspended(th, t);
    if (ns) return ns;
    jint count;
    CHECK((*base_g.jvmti)->GetFrameCount(base_g.jvmti, th, &count));
    buf_out_u32(out, (uint32_t)count);
    return 0;
}

int exec_threads_thread_owned_monitors(JNIEnv *env, inbuf *in, outbuf *out) {
    THREAD_ARG(th, t);
    PARSED(in);
    if (!base_g.caps.can_get_owned_monitor_info) return LS_NOT_CAPABLE;
    int ns = need_suspended(th, t);
    if (ns) return ns;
    if (base_g.caps.can_get_owned_monitor_stack_depth_info) {
        jint n;
        jvmtiMonitorStackDepthInfo *info;
        CHECK((*base_g.jvmti)->GetOwnedMonitorStackDepthInfo(base_g.jvmti, th, &n, &info));
        buf_out_u32(out, (uint32_t)n);
        for (jint i = 0; i < n; i++) {
            values_out_tagged(out, env, info[i].monitor);
            buf_out_u32(out, (uint32_t)info[i].stack_depth);
        }
        base_jvmti_free(info);
    } else {
        jint n;
        jobject *mons;
        CHECK((*base_g.jvmti)->GetOwnedMonitorInfo(base_g.jvmti, th, &n, &mons));
        buf_out_u32(out, (uint32_t)n);
        for (jint i = 0; i < n; i++) {
            values_out_tagged(out, env, mons[i]);
            buf_out_u32(out, (uint32_t)-1);
        }
        base_jvmti_free(mons);
    }
    return 0;
}

int exec_threads_thread_contended_monitor(JNIEnv *env, inbuf *in, outbuf *out) {
    THREAD_ARG(th, t);
    PARSED(in);
    if (!base_g.caps.can_get_current_contended_monitor) return LS_NOT_CAPABLE;
    int ns = need_suspended(th, t);
    if (ns) return ns;
    jobject mon = NULL;
    CHECK((*base_g.jvmti)->GetCurrentContendedMonitor(base_g.jvmti, th, &mon));
    values_out_tagged(out, env, mon);
    return 0;
}

int exec_threads_thread_stop(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    THREAD_ARG(th, t);
    uint64_t exc_id = buf_in_u64(in);
    PARSED(in);
    (void)t;
    if (!base_g.caps.can_signal_thread) return LS_NOT_CAPABLE;
    jobject exc;
    /* StopThread does not check: a non-Throwable thrown asynchronously would corrupt the thread. */
    int st = values_object_of_class(env, exc_id, base_g.cls_throwable, JVMTI_ERROR_INVALID_OBJECT, &exc);
    if (st) return st;
    CHECK((*base_g.jvmti)->StopThread(base_g.jvmti, th, exc));
    return 0;
}

int exec_threads_thread_interrupt(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    THREAD_ARG(th, t);
    PARSED(in);
    (void)t;
    if (!base_g.caps.can_signal_thread) return LS_NOT_CAPABLE;
    CHECK((*base_g.jvmti)->InterruptThread(base_g.jvmti, th));
    return 0;
}

/* One PopFrame, then let the thread run just far enough for the pop to happen: the next single step
 * (at the caller's invoke instruction) parks it again.  Lock held on entry and exit. */
static int pop_one(jthread th, thread_rec *t) {
    jvmtiError err = (*base_g.jvmti)->PopFrame(base_g.jvmti, th);
    if (err != JVMTI_ERROR_NONE) return (int)err;
    t->pop_pending = true;
    evmode_enable(JVMTI_EVENT_SINGLE_STEP, th, true);
    (*base_g.jvmti)->ResumeThread(base_g.jvmti, th);
    t->jvmti_suspended = false;
    if (t->parked) t->pop_release = true;
    base_lock_notify_all();
    for (int waited = 0; t->pop_pending && waited < 5000; waited += 10) base_lock_wait(10);
    if (t->pop_pending) return LS_INTERNAL;
    /* Parked again; suspend it for the next PopFrame. */
    for (int waited = 0; !t->parked && waited < 5000; waited += 10) base_lock_wait(10);
    return 0;
}

/* The error of a pop down to a depth the stack does not have (the last frame included, which has no
 * caller to return to).  The reference pops one frame after the other until JVMTI refuses: OPAQUE_FRAME
 * at the first native frame met (popped or caller), else NO_MORE_FRAMES at the last frame.  The same
 * error here, without the frames it pops on the way: a debugger asked for no partial pop. */
static int pop_past_the_stack(jthread th, jint count) {
    for (jint i = 0; i < count; i++) {
        jmethodID m;
        jlocation loc;
        jint mods;
        CHECK((*base_g.jvmti)->GetFrameLocation(base_g.jvmti, th, i, &m, &loc));
        CHECK((*base_g.jvmti)->GetMethodModifiers(base_g.jvmti, m, &mods));
        if (mods & 0x0100) return JVMTI_ERROR_OPAQUE_FRAME;
    }
    return JVMTI_ERROR_NO_MORE_FRAMES;
}

int exec_threads_thread_pop_frames(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    THREAD_ARG(th, t);
    jint depth = buf_in_i32(in);
    PARSED(in);
    if (!base_g.caps.can_pop_frame || !base_g.caps.can_generate_single_step_events) return LS_NOT_CAPABLE;
    jint count;
    CHECK((*base_g.jvmti)->GetFrameCount(base_g.jvmti, th, &count));
    if (depth < 0 || depth >= count - 1) return pop_past_the_stack(th, count);
    int st = 0;
    for (jint i = 0; i <= depth && !st; i++) {
        st = hard_suspend(th, t);
        if (st) break;
        base_lock_enter();
        st = pop_one(th, t);
        /* The reference's frame generation moves on by two for every frame it pops, by nothing when none
         * goes (observed on JDK 17 and 25; frames_stale_foreign_deep_and_garbage compares it). */
        if (!st) t->frame_generation += 2;
        base_lock_exit();
    }
    return st;
}

int exec_threads_thread_force_early_return(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    THREAD_ARG(th, t);
    uint8_t tag;
    jvalue v;
    int st = values_in_value(in, env, &tag, &v);
    if (st) return st;
    PARSED(in);
    if (!base_g.caps.can_force_early_return) return LS_NOT_CAPABLE;
    /* The reference asks JVMTI at once: a thread not alive is INVALID_THREAD, suspended or not. */
    jint state = 0;
    CHECK((*base_g.jvmti)->GetThreadState(base_g.jvmti, th, &state));
    if (!(state & JVMTI_THREAD_STATE_ALIVE)) return JVMTI_ERROR_INVALID_THREAD;
    st = hard_suspend(th, t);
    if (st) return st;
    switch (tag) {
    case TAG_VOID: CHECK((*base_g.jvmti)->ForceEarlyReturnVoid(base_g.jvmti, th)); break;
    case TAG_BOOLEAN: CHECK((*base_g.jvmti)->ForceEarlyReturnInt(base_g.jvmti, th, v.z)); break;
    case TAG_BYTE: CHECK((*base_g.jvmti)->ForceEarlyReturnInt(base_g.jvmti, th, v.b)); break;
    case TAG_CHAR: CHECK((*base_g.jvmti)->ForceEarlyReturnInt(base_g.jvmti, th, v.c)); break;
    case TAG_SHORT: CHECK((*base_g.jvmti)->ForceEarlyReturnInt(base_g.jvmti, th, v.s)); break;
    case TAG_INT: CHECK((*base_g.jvmti)->ForceEarlyReturnInt(base_g.jvmti, th, v.i)); break;
    case TAG_LONG: CHECK((*base_g.jvmti)->ForceEarlyReturnLong(base_g.jvmti, th, v.j)); break;
    case TAG_FLOAT: CHECK((*base_g.jvmti)->ForceEarlyReturnFloat(base_g.jvmti, th, v.f)); break;
    case TAG_DOUBLE: CHECK((*base_g.jvmti)->ForceEarlyReturnDouble(base_g.jvmti, th, v.d)); break;
    default: {
        /* The value must fit the method's declared return type (JVMTI checks only that it is an object). */
        jmethodID m;
        jlocation loc;
        char *msig = NULL;
        jclass decl = NULL;
        CHECK((*base_g.jvmti)->GetFrameLocation(base_g.jvmti, th, 0, &m, &loc));
        CHECK((*base_g.jvmti)->GetMethodName(base_g.jvmti, m, NULL, &msig, NULL));
        CHECK((*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, m, &decl));
        const char *ret = strchr(msig, ')');
        st = values_object_fits(env, v.l, ret ? ret + 1 : "V", decl);
        base_jvmti_free(msig);
        if (st) return st;
        CHECK((*base_g.jvmti)->ForceEarlyReturnObject(base_g.jvmti, th, v.l));
        break;
    }
    }
    return 0;
}

/* ---- frames ------------------------------------------------------------------------------ */

static int frame_check(JNIEnv *env, jthread th, thread_rec *t, jint depth) {
    (void)env;
    if (!base_g.caps.can_access_local_variables) return LS_NOT_CAPABLE;
    int ns = need_suspended(th, t);
    if (ns) return ns;
    /* Newer HotSpots (JDK 21+) want a JVMTI-suspended thread for locals, not one parked in a callback. */
    ns = hard_suspend(th, t);
    if (ns) return ns;
    jint count;
    CHECK((*base_g.jvmti)->GetFrameCount(base_g.jvmti, th, &count));
    if (depth < 0 || depth >= count) return JVMTI_ERROR_NO_MORE_FRAMES;
    return 0;
}

int exec_threads_frame_get_locals(JNIEnv *env, inbuf *in, outbuf *out) {
    THREAD_ARG(th, t);
    jint depth = buf_in_i32(in);
    uint32_t n = buf_in_u32(in);
    if (in->bad || (uint64_t)n * 5 != in->len - in->pos) return LS_BAD_MESSAGE;
    int st = frame_check(env, th, t, depth);
    if (st) return st;
    buf_out_u32(out, n);
    for (uint32_t i = 0; i < n; i++) {
        jint slot = buf_in_i32(in);
        uint8_t tag = buf_in_u8(in);
        jvalue v;
        memset(&v, 0, sizeof v);
        jint iv = 0;
        switch (tag) {
        case TAG_BOOLEAN: case TAG_BYTE: case TAG_CHAR: case TAG_SHORT: case TAG_INT:
            CHECK((*base_g.jvmti)->GetLocalInt(base_g.jvmti, th, depth, slot, &iv));
            if (tag == TAG_BOOLEAN) v.z = (jboolean)(iv != 0);
            else if (tag == TAG_BYTE) v.b = (jbyte)iv;
            else if (tag == TAG_CHAR) v.c = (jchar)iv;
            else if (tag == TAG_SHORT) v.s = (jshort)iv;
            else v.i = iv;
            break;
        case TAG_LONG: CHECK((*base_g.jvmti)->GetLocalLong(base_g.jvmti, th, depth, slot, &v.j)); break;
        case TAG_FLOAT: CHECK((*base_g.jvmti)->GetLocalFloat(base_g.jvmti, th, depth, slot, &v.f)); break;
        case TAG_DOUBLE: CHECK((*base_g.jvmti)->GetLocalDouble(base_g.jvmti, th, depth, slot, &v.d)); break;
        default:
            if (!values_tag_is_object(tag)) return LS_BAD_MESSAGE;
            CHECK((*base_g.jvmti)->GetLocalObject(base_g.jvmti, th, depth, slot, &v.l));
            break;
        }
        values_out_jvalue(out, env, tag, v);
        if (values_tag_is_object(tag) && v.l) (*env)->DeleteLocalRef(env, v.l);
    }
    return 0;
}

int exec_threads_frame_set_locals(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    THREAD_ARG(th, t);
    jint depth = buf_in_i32(in);
    uint32_t n = buf_in_u32(in);
    if (in->bad) return LS_BAD_MESSAGE;
    int st = frame_check(env, th, t, depth);
    if (st) return st;
    for (uint32_t i = 0; i < n; i++) {
        jint slot = buf_in_i32(in);
        uint8_t tag;
        jvalue v;
        st = values_in_value(in, env, &tag, &v);
        if (st) return st;
        switch (tag) {
        case TAG_BOOLEAN: CHECK((*base_g.jvmti)->SetLocalInt(base_g.jvmti, th, depth, slot, v.z)); break;
        case TAG_BYTE: CHECK((*base_g.jvmti)->SetLocalInt(base_g.jvmti, th, depth, slot, v.b)); break;
        case TAG_CHAR: CHECK((*base_g.jvmti)->SetLocalInt(base_g.jvmti, th, depth, slot, v.c)); break;
        case TAG_SHORT: CHECK((*base_g.jvmti)->SetLocalInt(base_g.jvmti, th, depth, slot, v.s)); break;
        case TAG_INT: CHECK((*base_g.jvmti)->SetLocalInt(base_g.jvmti, th, depth, slot, v.i)); break;
        case TAG_LONG: CHECK((*base_g.jvmti)->SetLocalLong(base_g.jvmti, th, depth, slot, v.j)); break;
        case TAG_FLOAT: CHECK((*base_g.jvmti)->SetLocalFloat(base_g.jvmti, th, depth, slot, v.f)); break;
        case TAG_DOUBLE: CHECK((*base_g.jvmti)->SetLocalDouble(base_g.jvmti, th, depth, slot, v.d)); break;
        case TAG_VOID: return JVMTI_ERROR_TYPE_MISMATCH;
        default: CHECK((*base_g.jvmti)->SetLocalObject(base_g.jvmti, th, depth, slot, v.l)); break;
        }
    }
    PARSED(in);
    return 0;
}

int exec_threads_frame_this(JNIEnv *env, inbuf *in, outbuf *out) {
    THREAD_ARG(th, t);
    jint depth = buf_in_i32(in);
    PARSED(in);
    int st = frame_check(env, th, t, depth);
    if (st) return st;
    jmethodID m;
    jlocation loc;
    CHECK((*base_g.jvmti)->GetFrameLocation(base_g.jvmti, th, depth, &m, &loc));
    jint mods;
    CHECK((*base_g.jvmti)->GetMethodModifiers(base_g.jvmti, m, &mods));
    jobject self = NULL;
    if (!(mods & (0x0008 | 0x0100))) CHECK((*base_g.jvmti)->GetLocalInstance(base_g.jvmti, th, depth, &self));
    values_out_tagged(out, env, self);
    return 0;
}

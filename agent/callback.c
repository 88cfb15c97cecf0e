/* The callback skeleton's enter and exit: the thread's record, the count that keeps a thread inside
 * our callbacks from being JVMTI-suspended, and parking (callback.h).
 *
 * Locking rule that keeps SuspendThread deadlock-free (threads.c): a thread inside a callback
 * (in_agent > 0) or parked is never SuspendThread'ed; it only has its count raised and parks here,
 * on its way out, so no thread is ever suspended while it holds one of our locks. */
#include "base.h"
#include "callback.h"
#include "filters.h"
#include "invoke.h"
#include "live.h"
#include "threads.h"
#include "unload.h"
#include "unload_report.h"

thread_rec *callback_enter(JNIEnv *env, jthread thread) {
    if (live_walking()) return NULL;  /* the agent's own stack walk (live.c) runs Java code */
    void *tls = NULL;
    (*base_g.jvmti)->GetThreadLocalStorage(base_g.jvmti, NULL, &tls);
    if (tls && ((thread_rec *)tls)->is_agent) return NULL;
    if (thread == NULL) return NULL;
    base_lock_enter();
    thread_rec *t = tls ? (thread_rec *)tls : threads_rec_of(env, thread);
    if (t == NULL || t->is_agent) {
        base_lock_exit();
        return NULL;
    }
    t->in_agent++;
    t->cle_seen = t->cle_valid;  /* any event after a step/entry report ends its co-location */
    t->cle_valid = false;
    base_lock_exit();
    return t;
}

/* Lock held.  Waits while the count is positive, running invokes handed to this thread. */
static void park(JNIEnv *env, thread_rec *t) {
    t->parked = true;
    base_lock_notify_all();  /* requests that need a parked thread may be waiting for this */
    /* An invoke already running is an outer one: this is a park nested inside its call. */
    /* An interrupt of a parked thread ends its raw-monitor wait and is cleared by it; it is the
     * application's, so it is raised again once the thread goes on (the reference keeps it pending
     * the same way): else a Thread.sleep or wait after the event would miss it. */
    bool interrupted = false;
    while ((t->suspend_count > 0 || invoke_is_runnable(t)) && !base_g.vm_dead && !t->pop_release) {
        if (invoke_is_runnable(t)) {
            invoke_run_pending(env, t);
            continue;
        }
        if (base_lock_wait(0) == JVMTI_ERROR_INTERRUPT) interrupted = true;
    }
    t->parked = false;
    if (interrupted && base_g.caps.can_signal_thread) {
        jthread self = threads_ref(env, t);  /* the current thread: alive */
        if (self != NULL) {
            jvmtiError err = (*base_g.jvmti)->InterruptThread(base_g.jvmti, self);
            if (err != JVMTI_ERROR_NONE) base_log("InterruptThread: %d", err);
            (*env)->DeleteLocalRef(env, self);
        }
    }
    if (t->pop_release) {
        t->pop_release = false;  /* at_event stays: the thread parks again right after the pop */
        return;
    }
    t->at_event = false;
}

void callback_exit(JNIEnv *env, thread_rec *t) {
    if (t == NULL) return;
    base_lock_enter();
    if (t->suspend_count > 0) park(env, t);
    /* Resumed before it could park (its event's resume came back first): it is at no event, and a
     * later suspension of it, which never parks it, must not report it RUNNING nor take invokes. */
    else t->at_event = false;
    t->in_agent--;
    base_lock_exit();
}

void callback_hits_send(JNIEnv *env, thread_rec *t, uint64_t thread_id, hits *h) {
    if (h->count == 0) return;
    /* Unloads a GC did go out before the next event, as the reference reports them. */
    if (unload_tracking_active()) unload_report_pending(env);
    filters_hits_send_raw(env, t, thread_id, h);
}

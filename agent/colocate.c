/* Co-located events (the reference groups them; JVMTI reports them as separate callbacks): hits of
 * a step or method entry at a place with a breakpoint wait in the thread's record for the
 * breakpoint's callback, and go out with it in one EVENT. */
#include "base.h"
#include "breakpoints.h"
#include "buf.h"
#include "callback.h"
#include "colocate.h"
#include "ext.h"
#include "filters.h"
#include "hits.h"
#include "threads.h"
#include "values.h"

/* Co-located events: a step or method entry at a place where a breakpoint is set waits for the
 * breakpoint's callback, so that all of them reach the debugger in one composite (JVMTI reports
 * them as separate callbacks, the reference agent as one event set). */
void colocate_flush_deferred(JNIEnv *env, thread_rec *t, hits *into) {
    if (t->deferred_count == 0) return;
    if (into) {
        /* Deferred hits go first, as the reference orders them (entry, step, breakpoint). */
        hits_prepend(into, t->deferred.data, t->deferred.len);
        into->count += t->deferred_count;
        if (t->deferred_policy > into->policy) into->policy = t->deferred_policy;
    } else {
        hits h;
        h.body = t->deferred;
        h.count = t->deferred_count;
        h.policy = t->deferred_policy;
        callback_hits_send(env, t, t->id, &h);  /* h borrows the buffer, which is kept for reuse */
    }
    t->deferred.len = 0;
    t->deferred_count = 0;
    t->deferred_policy = 0;
}

/* Hits deferred to a breakpoint that never came (cleared in between) go out on their own. */
void colocate_flush_stale_deferred(JNIEnv *env, thread_rec *t, jmethodID m, jlocation loc) {
    base_lock_enter();
    bool stale = t->deferred_count && (t->deferred_method != m || t->deferred_loc != loc);
    base_lock_exit();
    if (stale) colocate_flush_deferred(env, t, NULL);
}

/* defer_to_step: a method entry while the thread single-steps waits for the step event at the same
 * place (the reference defers entries then too). */
void colocate_send_or_defer(JNIEnv *env, thread_rec *t, hits *h, jmethodID m, jlocation loc, bool defer_to_step) {
    /* read without the lock, before they may be deferred; a request they expired goes now */
    if (h->ncaps && ext_captures_run(env, t, h)) filters_expire_pending(env);
    if (h->count == 0) return;
    base_lock_enter();
    if (t->deferred_count && (t->deferred_method != m || t->deferred_loc != loc)) {
        base_lock_exit();
        colocate_flush_deferred(env, t, NULL);
        base_lock_enter();
    }
    bool defer = breakpoints_present(m, loc) || defer_to_step;
    if (defer) {
        if (t->deferred.data == NULL) buf_out_init(&t->deferred, 128);
        buf_out_bytes(&t->deferred, h->body.data, h->body.len);
        t->deferred_count += h->count;
        if (h->policy > t->deferred_policy) t->deferred_policy = h->policy;
        t->deferred_method = m;
        t->deferred_loc = loc;
    } else {
        colocate_flush_deferred(env, t, h);  /* earlier hits at this place first, in one composite */
    }
    base_lock_exit();
    if (!defer) {
        callback_hits_send(env, t, t->id, h);
        base_lock_enter();
        t->cle_method = m;
        t->cle_loc = loc;
        t->cle_valid = true;
        base_lock_exit();
    }
}

void colocate_report_step(JNIEnv *env, thread_rec *t, jthread thread, jmethodID method, jlocation loc, int32_t request_id,
                 uint8_t policy) {
    (void)thread;
    hits h;
    hits_init(&h);
    hits_begin(&h, request_id, EK_SINGLE_STEP, policy);
    values_out_location(&h.body, env, method, loc);
    colocate_send_or_defer(env, t, &h, method, loc, false);
    filters_hits_free(&h);
}

/* The skeleton every JVMTI callback of an application thread follows, written once:
 *
 *   enter (skip the agent's own threads, count the thread inside us: never JVMTI-suspended there)
 *   -> the event's context -> match the filters of its kind under the agent lock -> send one EVENT
 *   (the suspend policy applied first) -> free -> exit (park while the thread's count is positive,
 *   running the invokes handed to it).
 *
 * ev_enter/ev_match/ev_exit are inline: a callback costs what it cost when each wrote them out (no
 * allocation: the context and the hits live on the callback's stack; one lock section per match). */
#ifndef JDWPD_CALLBACK_H
#define JDWPD_CALLBACK_H

#include <string.h>

#include "filters.h"
#include "threads.h"

/* Current thread's record, or NULL if it is an agent thread (or the agent's own stack walk). */
thread_rec *callback_enter(JNIEnv *env, jthread thread);
void callback_exit(JNIEnv *env, thread_rec *t);  /* parks if the count is > 0 */

/* Sends one EVENT frame: the class unloads a GC did first, then the hits (suspend policy applied
 * first, lock taken inside). */
void callback_hits_send(JNIEnv *env, thread_rec *t, uint64_t thread_id, hits *h);

/* One callback's state, on its stack. */
typedef struct ev_call {
    thread_rec *t;
    ev_ctx c;
    hits h;
} ev_call;

/* The context of an event at (method, loc) on thread, before matching. */
static inline void ev_ctx_init(ev_ctx *c, JNIEnv *env, jthread thread, jmethodID method, jlocation loc) {
    memset(c, 0, sizeof *c);
    c->env = env;
    c->thread = thread;
    c->method = method;
    c->loc = loc;
    if (method) (*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, method, &c->cls);
}

/* For a callback that entered already (it read its place inside): t may be NULL, an event of the
 * agent's own threads that is still reported (a class they prepare), with no thread to suspend. */
static inline void ev_begin(ev_call *e, thread_rec *t, JNIEnv *env, jthread thread, jmethodID method,
                            jlocation loc) {
    e->t = t;
    ev_ctx_init(&e->c, env, thread, method, loc);
    hits_init(&e->h);
}

/* False: an agent thread's event, nothing to do (and no ev_exit). */
static inline bool ev_enter(ev_call *e, JNIEnv *env, jthread thread, jmethodID method, jlocation loc) {
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return false;
    ev_begin(e, t, env, thread, method, loc);
    return true;
}

/* Match the filters of kind (re-entrant: a caller may hold the lock around it). */
static inline void ev_match(ev_call *e, uint8_t kind, hit_writer w, void *arg) {
    base_lock_enter();
    filters_match_kind(kind, &e->c, &e->h, w, arg);
    base_lock_exit();
}

/* Send what matched (nothing if nothing did), free, and park if the thread is to be suspended. */
static inline void ev_exit(ev_call *e) {
    e->h.stop_thread = e->c.thread;
    e->h.stop_method = e->c.method;
    e->h.stop_loc = e->c.loc;
    callback_hits_send(e->c.env, e->t, e->t != NULL ? e->t->id : 0, &e->h);
    filters_hits_free(&e->h);
    filters_ctx_free(&e->c);
    callback_exit(e->c.env, e->t);
}

#endif

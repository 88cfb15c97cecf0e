/* Per-thread records: the agent's suspend count and the JVMTI suspension behind it (parking, where
 * a counted thread waits on its way out of a callback, is callback.c's).
 *
 * Locking rule that keeps SuspendThread deadlock-free: every SuspendThread is issued with base_g.lock held,
 * and never on a thread that is inside one of our callbacks (in_agent > 0) or parked; such a thread
 * only has its count raised and parks on its way out of the callback.  So no thread is ever suspended
 * while it holds one of our locks. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "evmode.h"
#include "link.h"
#include "objects.h"
#include "threads.h"
#include "vthreads.h"

static thread_rec *records;
/* Records whose thread refused thread-local storage (not started yet, or ended): with none, a live
 * thread whose TLS is empty has no record, and no search is needed (with many virtual threads coming
 * and going, a search per new thread would be quadratic). */
static int records_without_tls;
static thread_rec agent_marker;
int threads_suspend_all_depth;

void threads_init(void) {
    agent_marker.is_agent = true;
}

static thread_rec *find_rec(JNIEnv *env, jthread thread) {
    void *tls = NULL;
    jvmtiError err = (*base_g.jvmti)->GetThreadLocalStorage(base_g.jvmti, thread, &tls);
    if (err == JVMTI_ERROR_NONE && tls) return tls;
    /* An ended thread answers no TLS at all: its record, if any, is found by search. */
    if (err == JVMTI_ERROR_NONE && records_without_tls == 0) return NULL;
    for (thread_rec *r = records; r; r = r->next)
        if ((*env)->IsSameObject(env, r->ref, thread)) return r;
    return NULL;
}

thread_rec *threads_rec_find(JNIEnv *env, jthread thread) { return find_rec(env, thread); }

/* Records hold their thread weakly: a live thread is reachable anyway, and an ended one must go
 * when the program lets go of it (a debugger that was once sent a thread must not keep it alive).
 * A collected thread has no local ref: it has ended, and nothing of JVMTI applies to it. */
jthread threads_ref(JNIEnv *env, thread_rec *t) { return (*env)->NewLocalRef(env, t->ref); }

thread_rec *threads_rec_of(JNIEnv *env, jthread thread) {
    thread_rec *r = find_rec(env, thread);
    if (r) return r;
    if (link_is_agent_thread(env, thread)) {
        (*base_g.jvmti)->SetThreadLocalStorage(base_g.jvmti, thread, &agent_marker);
        return &agent_marker;
    }
    r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->ref = (*env)->NewWeakGlobalRef(env, thread);
    if (r->ref == NULL) {
        free(r);
        return NULL;
    }
    r->id = objects_id(env, thread);
    jint state = 0;
    if (threads_suspend_all_depth > 0 && vthreads_is_virtual(env, thread) &&
        (*base_g.jvmti)->GetThreadState(base_g.jvmti, thread, &state) == JVMTI_ERROR_NONE &&
        !(state & JVMTI_THREAD_STATE_TERMINATED)) {
        /* A virtual thread first seen during a suspend-all: JVMTI holds it suspended with all the others
         * (SuspendAllVirtualThreads), so it has the suspend-all's count, and a resume must undo it. */
        r->suspend_count = threads_suspend_all_depth;
        r->jvmti_suspended = true;
    }
    if ((*base_g.jvmti)->SetThreadLocalStorage(base_g.jvmti, thread, r) != JVMTI_ERROR_NONE) {
        r->no_tls = true;
        records_without_tls++;
    }
    r->next = records;
    records = r;
    return r;
}

static bool thread_has_ended(JNIEnv *env, thread_rec *t) {
    jthread th = threads_ref(env, t);
    if (th == NULL) return true;  /* collected: it ended */
    jint state = 0;
    bool ended = (*base_g.jvmti)->GetThreadState(base_g.jvmti, th, &state) == JVMTI_ERROR_NONE
                 && (state & JVMTI_THREAD_STATE_TERMINATED);
    (*env)->DeleteLocalRef(env, th);
    return ended;
}

/* JVMTI's resume of a thread we suspended (such a thread cannot have ended, nor been collected). */
static void jvmti_resume(JNIEnv *env, thread_rec *t) {
    jthread th = threads_ref(env, t);
    if (th != NULL) {
        jvmtiError err = (*base_g.jvmti)->ResumeThread(base_g.jvmti, th);
        if (err != JVMTI_ERROR_NONE && err != JVMTI_ERROR_THREAD_NOT_ALIVE) base_log("ResumeThread: %d", err);
        (*env)->DeleteLocalRef(env, th);
    }
    t->jvmti_suspended = false;
}

/* An ended thread keeps a count, as in the reference (which counts it in its list of threads outside
 * their start and end events): the debugger's suspensions of it, plus the VM-wide suspensions under
 * way when the first of them came, until resumes bring it back to 0.  JVMTI has nothing to do. */
int threads_suspend(JNIEnv *env, thread_rec *t) {
    if (t->suspend_count == 0 && thread_has_ended(env, t)) {
        t->suspend_count = threads_suspend_all_depth + 1;
        t->ended_count = true;
        t->frame_generation = 0;
        return 0;
    }
    if (t->suspend_count++ == 0 && t->in_agent == 0 && !t->parked && !t->jvmti_suspended) {
        jthread th = threads_ref(env, t);
        jvmtiError err = th != NULL ? (*base_g.jvmti)->SuspendThread(base_g.jvmti, th) : JVMTI_ERROR_THREAD_NOT_ALIVE;
        if (th != NULL) (*env)->DeleteLocalRef(env, th);
        if (err == JVMTI_ERROR_NONE) {
            t->jvmti_suspended = true;
        } else if (err != JVMTI_ERROR_THREAD_NOT_ALIVE) {
            t->suspend_count--;
            return (int)err;
        }
    }
    return 0;
}

int threads_resume(JNIEnv *env, thread_rec *t) {
    if (t->suspend_count == 0) return 0;
    if (--t->suspend_count == 0) {
        if (t->jvmti_suspended) jvmti_resume(env, t);
        threads_ran(t);
        base_lock_notify_all();
    }
    return 0;
}

void threads_ran(thread_rec *t) {
    if (!t->ended_count) t->frame_generation++;
    t->ended_count = false;
}

/* Only the executor frees records (it holds no record across requests); event threads never do. */
void threads_drop_dead(JNIEnv *env) {
    thread_rec **pp = &records;
    while (*pp) {
        thread_rec *r = *pp;
        /* An ended thread a debugger still counts as suspended keeps its record (its count). */
        if (r->suspend_count == 0 && r->in_agent == 0 && r->invoke == NULL && r->step == NULL &&
            thread_has_ended(env, r)) {
            *pp = r->next;
            if (records_without_tls > 0 && r->no_tls) records_without_tls--;
            (*env)->DeleteWeakGlobalRef(env, r->ref);
            buf_out_free(&r->deferred);
            buf_out_free(&r->capture);
            free(r);
        } else {
            pp = &r->next;
        }
    }
}

/* Records of ended threads since the executor last swept them (only it may free records). */
static unsigned ended_since_sweep;
#define SWEEP_AFTER 1024  /* ended threads: virtual ones come and go by the million */

void threads_forget(JNIEnv *env, thread_rec *t) {
    (void)env;
    if (!t->dead) ended_since_sweep++;
    t->dead = true;
}

static void thread_start_ref(bool on) {
    evmode_enable(JVMTI_EVENT_THREAD_START, NULL, on);
}

/* A virtual thread that has not ended (ended ones are counted as every ended thread is, and JVMTI
 * refuses them in the lists below). */
static bool live_virtual(JNIEnv *env, thread_rec *r) {
    if (r->is_agent || r->dead) return false;
    jthread th = threads_ref(env, r);
    if (th == NULL) return false;
    jint state = 0;
    bool live = (*base_g.jvmti)->GetThreadState(base_g.jvmti, th, &state) == JVMTI_ERROR_NONE &&
                !(state & JVMTI_THREAD_STATE_TERMINATED) && vthreads_is_virtual(env, th);
    (*env)->DeleteLocalRef(env, th);
    return live;
}

/* Live threads (live_virtual just said so) have a local ref, never NULL. */
static void delete_locals(JNIEnv *env, jthread *refs, jint n) {
    for (jint i = 0; refs != NULL && i < n; i++)
        if (refs[i] != NULL) (*env)->DeleteLocalRef(env, refs[i]);
}

/* Virtual threads (JDK 21+) are not in GetAllThreads: JVMTI suspends them all in one call.  Those the
 * agent knows are counted like platform threads; the ones inside our callbacks, parked, or suspended
 * already stay out of the call, so that it never stops a thread holding our lock.  Lock held. */
static void suspend_all_virtual(JNIEnv *env, thread_rec *except) {
    int n = 0;
    for (thread_rec *r = records; r; r = r->next) n++;
    jthread *keep = calloc((size_t)n + 1, sizeof *keep);
    thread_rec **taken = calloc((size_t)n + 1, sizeof *taken);
    if (keep == NULL || taken == NULL) {
        free(keep);
        free(taken);
        base_log("suspend-all: out of memory for the virtual threads");
        return;
    }
    jint k = 0, m = 0;
    for (thread_rec *r = records; r; r = r->next) {
        if (!live_virtual(env, r)) continue;
        if (r == except) {
            keep[k++] = threads_ref(env, r);
            continue;
        }
        if (r->suspend_count++ == 0 && r->in_agent == 0 && !r->parked && !r->jvmti_suspended) taken[m++] = r;
        else keep[k++] = threads_ref(env, r);
    }
    jvmtiError err = vthreads_suspend_all(k, keep);
    delete_locals(env, keep, k);
    if (err == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < m; i++) taken[i]->jvmti_suspended = true;
    } else {
        base_log("SuspendAllVirtualThreads: %d", err);
    }
    free(keep);
    free(taken);
}

/* The last resume-all: one call resumes every virtual thread but those still counted.  Lock held. */
static void resume_all_virtual(JNIEnv *env) {
    int n = 0;
    for (thread_rec *r = records; r; r = r->next) n++;
    jthread *keep = calloc((size_t)n + 1, sizeof *keep);
    jint k = 0;
    for (thread_rec *r = records; r; r = r->next) {
        if (r->suspend_count == 0 || !live_virtual(env, r)) continue;
        if (--r->suspend_count == 0) {
            r->jvmti_suspended = false;
            threads_ran(r);
        } else if (keep) {
            keep[k++] = threads_ref(env, r);
        }
    }
    jvmtiError err = vthreads_resume_all(k, keep);
    delete_locals(env, keep, k);
    if (err != JVMTI_ERROR_NONE) base_log("ResumeAllVirtualThreads: %d", err);
    free(keep);
    base_lock_notify_all();
}

int threads_suspend_all(JNIEnv *env, thread_rec *except) {
    jint n = 0;
    jthread *threads = NULL;
    /* Thread starts are watched before the list is taken: a thread started meanwhile (a suspended
     * thread may still finish its Thread.start) is either in the list or reports its start, which
     * waits for our lock and then finds the suspend-all in force (cb_thread_start). */
    if (threads_suspend_all_depth == 0) thread_start_ref(true);
    /* Ended threads still counted are not in GetAllThreads' list: they count this suspension too.
     * (Before the list is taken: a thread ending meanwhile is counted once at most.) */
    for (thread_rec *r = records; r; r = r->next)
        if (!r->is_agent && r != except && r->suspend_count > 0 && thread_has_ended(env, r)) r->suspend_count++;
    jvmtiError err = (*base_g.jvmti)->GetAllThreads(base_g.jvmti, &n, &threads);
    if (err != JVMTI_ERROR_NONE) {
        if (threads_suspend_all_depth == 0) thread_start_ref(false);
        return (int)err;
    }
    jthread *to_suspend = calloc((size_t)n + 1, sizeof *to_suspend);
    thread_rec **recs = calloc((size_t)n + 1, sizeof *recs);
    jint k = 0;
    for (jint i = 0; i < n; i++) {
        thread_rec *t = threads_rec_of(env, threads[i]);
        if (t && !t->is_agent && t != except) {
            if (t->suspend_count++ == 0 && t->in_agent == 0 && !t->parked && !t->jvmti_suspended && to_suspend) {
                to_suspend[k] = threads[i];
                recs[k++] = t;
            }
        }
    }
    if (k > 0 && to_suspend && recs) {
        jvmtiError *results = calloc((size_t)k, sizeof *results);
        if (results && (*base_g.jvmti)->SuspendThreadList(base_g.jvmti, k, to_suspend, results) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < k; i++)
                if (results[i] == JVMTI_ERROR_NONE) recs[i]->jvmti_suspended = true;
        }
        free(results);
    }
    delete_locals(env, threads, n);
    base_jvmti_free(threads);
    free(to_suspend);
    free(recs);
    if (vthreads_supported()) suspend_all_virtual(env, except);
    threads_suspend_all_depth++;
    objects_pin_all(env);
    return 0;
}

int threads_resume_all(JNIEnv *env) {
    bool virtual_all = vthreads_supported() && threads_suspend_all_depth == 1;
    if (virtual_all) resume_all_virtual(env);
    for (thread_rec *t = records; t; t = t->next) {
        if (t->is_agent || t->suspend_count == 0) continue;
        if (!(virtual_all && live_virtual(env, t))) threads_resume(env, t);
    }
    if (threads_suspend_all_depth > 0) {
        objects_unpin_all_suspended(env);
        if (--threads_suspend_all_depth == 0) thread_start_ref(false);
    }
    return 0;
}

void threads_reset(JNIEnv *env) {
    if (vthreads_supported() && threads_suspend_all_depth > 0) vthreads_resume_all(0, NULL);
    for (thread_rec *t = records; t; t = t->next) {
        if (t->suspend_count > 0) threads_ran(t);
        t->suspend_count = 0;
        if (t->jvmti_suspended) jvmti_resume(env, t);
        t->deferred_count = 0;
    }
    if (threads_suspend_all_depth > 0) thread_start_ref(false);
    threads_suspend_all_depth = 0;
    threads_drop_dead(env);
    base_lock_notify_all();
}

void threads_each(JNIEnv *env, void (*fn)(JNIEnv *env, thread_rec *t)) {
    for (thread_rec *t = records; t; t = t->next) fn(env, t);
}

void threads_apply_suspend_policy(JNIEnv *env, thread_rec *t, uint8_t policy) {
    if (policy == SP_NONE) return;
    if (policy == SP_ALL) threads_suspend_all(env, t);
    t->suspend_count++;
    t->at_event = true;
}

int threads_from_id(JNIEnv *env, uint64_t id, jthread *out, thread_rec **rec) {
    int status;
    jobject obj = objects_ref(env, id, &status);
    if (obj == NULL) return status ? status : JVMTI_ERROR_INVALID_THREAD;
    if (!(*env)->IsInstanceOf(env, obj, base_g.cls_thread) || link_is_agent_thread(env, obj)) {
        (*env)->DeleteLocalRef(env, obj);
        return JVMTI_ERROR_INVALID_THREAD;
    }
    *out = obj;
    base_lock_enter();
    if (ended_since_sweep >= SWEEP_AFTER) {  /* executor side, before it holds any record */
        ended_since_sweep = 0;
        threads_drop_dead(env);
    }
    base_lock_exit();
    if (rec) {
        base_lock_enter();
        *rec = threads_rec_of(env, obj);
        base_lock_exit();
        if (*rec == NULL) return LS_INTERNAL;
    }
    return 0;
}


/* Per-thread records: the agent's suspend count and the JVMTI suspension behind it.  Every function
 * here runs with the agent lock held unless it says otherwise. */
#ifndef JDWPD_THREADS_H
#define JDWPD_THREADS_H

#include "base.h"
#include "buf.h"

typedef struct step_state step_state;
typedef struct thread_rec {
    struct thread_rec *next;
    jweak ref;            /* weak: an ended thread goes with its last reference, as with the
                           * reference; use threads_ref() (NULL once collected) */
    uint64_t id;
    int suspend_count;    /* the agent's count */
    bool jvmti_suspended; /* we called SuspendThread */
    int in_agent;         /* inside one of our callbacks: never SuspendThread'ed, parks on the way out */
    bool parked;          /* waiting in thread_park */
    bool at_event;        /* parked because of an event */
    bool is_agent;
    bool dead;
    bool no_tls;          /* JVMTI refused it thread-local storage: found by search */
    /* Frame ids name (generation, depth); the reference moves a thread's generation on at each real
     * resume by a debugger, and starts it at 0 again for an ended thread a debugger suspends (its count
     * there is bookkeeping only: ended_count). */
    uint32_t frame_generation;
    bool ended_count;
    /* PopFrames: the parked thread leaves its callback once so the pop takes effect, and parks again at
     * the single step that follows (the caller's invoke instruction). */
    bool pop_release;
    bool pop_pending;
    /* Co-located events: a breakpoint right where this thread last reported a step or method entry
     * is not reported again (the debugger has seen the thread there), as the reference does. */
    jmethodID cle_method;
    jlocation cle_loc;
    bool cle_valid;  /* set by that report */
    bool cle_seen;   /* cle_valid as the current callback found it */
    /* invoke slot (invoke.c) */
    struct invoke_req *invoke;
    /* step (step.c) */
    step_state *step;
    /* co-located events deferred to the breakpoint at the same place */
    outbuf deferred;      /* hits, already encoded */
    int deferred_count;
    uint8_t deferred_policy;
    jmethodID deferred_method;
    jlocation deferred_loc;
    outbuf capture;       /* the blobs of this thread's captures, read outside the lock (ext.c); kept */
} thread_rec;

void threads_init(void);
/* The record of a thread (creating it); lock held by the caller. */
thread_rec *threads_rec_of(JNIEnv *env, jthread thread);
/* The record of a thread if it has one; lock held by the caller. */
thread_rec *threads_rec_find(JNIEnv *env, jthread thread);
/* A local ref to the record's thread, NULL once the (ended) thread was collected; caller deletes it. */
jthread threads_ref(JNIEnv *env, thread_rec *t);
int threads_suspend(JNIEnv *env, thread_rec *t);
int threads_resume(JNIEnv *env, thread_rec *t);
/* Lock held: the debugger's suspension of the thread ended (its frame ids with it). */
void threads_ran(thread_rec *t);
int threads_suspend_all(JNIEnv *env, thread_rec *except);
int threads_resume_all(JNIEnv *env);
/* Link loss (agent.c's reset, lock held): counts 0, all resumed. */
void threads_reset(JNIEnv *env);
void threads_each(JNIEnv *env, void (*fn)(JNIEnv *env, thread_rec *t));  /* lock held */
void threads_drop_dead(JNIEnv *env);  /* executor only, lock held: forget ended threads */
void threads_forget(JNIEnv *env, thread_rec *t);  /* thread ended */
/* Apply a suspend policy for an event on thread t (lock held). */
void threads_apply_suspend_policy(JNIEnv *env, thread_rec *t, uint8_t policy);
/* Executor side: a live application thread from an id, or a status. */
int threads_from_id(JNIEnv *env, uint64_t id, jthread *out, thread_rec **rec);
extern int threads_suspend_all_depth;

#endif

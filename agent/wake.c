/* onthrow=/onuncaught= (the reference's options): the dormant agent and the exception that wakes it. */
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "callback.h"
#include "filters.h"
#include "hits.h"
#include "link.h"
#include "threads.h"
#include "values.h"
#include "wake.h"

/* Until the exception the agent holds its capabilities (HotSpot grants them only at load) but has no
 * thread, no link and one enabled event, Exception. */
static bool is_trigger(JNIEnv *env, jobject exception, bool caught) {
    if (!base_g.vm_started) return false;  /* the reference, too, ignores what is thrown before VMInit */
    if (base_g.opts.onuncaught && !caught) return true;
    if (base_g.opts.onthrow == NULL) return false;
    bool same = false;
    jclass cls = (*env)->GetObjectClass(env, exception);
    char *sig = NULL;
    if (cls != NULL && (*base_g.jvmti)->GetClassSignature(base_g.jvmti, cls, &sig, NULL) == JVMTI_ERROR_NONE)
        same = strcmp(sig, base_g.opts.onthrow) == 0;  /* the class itself, not a subclass, as the reference */
    base_jvmti_free(sig);
    if (cls != NULL) (*env)->DeleteLocalRef(env, cls);
    return same;
}

/* Two threads may throw at once: one wakes the agent. */
static bool claim_the_wake(void) {
    base_lock_enter();
    bool mine = base_g.dormant;
    base_g.dormant = false;
    base_lock_exit();
    return mine;
}

/* suspend=y: every other thread stops now, at the throw, not once the daemon has the link (under load
 * that took long enough for the program to move on).  Only after link_start: making the agent threads
 * runs Java code (new Thread() takes its thread group's monitor), which a thread stopped holding that
 * monitor would block for good.  This is the start event's SUSPEND_ALL, counted as threads_apply_suspend_policy
 * counts it: a link-loss reset undoes it like any other. */
static void stop_everything(JNIEnv *env, thread_rec *t) {
    base_lock_enter();
    int err = threads_suspend_all(env, t);
    if (err != 0) base_log("onthrow: suspending the other threads: JVMTI error %d", err);
    t->suspend_count++;
    t->at_event = true;
    base_lock_exit();
}

static void run_on(JNIEnv *env, thread_rec *t) {
    base_lock_enter();
    if (t->suspend_count > 0) threads_resume_all(env);  /* 0: a link-loss reset has resumed everything */
    t->at_event = false;
    base_lock_exit();
}

/* The exception that woke the agent is the first debugger's start event, as the reference reports its
 * trigger: request 0, every thread suspended until that debugger resumes.  The hit carries no suspension
 * of its own (stop_everything made it), so a link lost before it is sent drops it, the reset having
 * resumed everything. */
static void report(JNIEnv *env, thread_rec *t, jmethodID method, jlocation loc, jobject exception,
                   jmethodID catch_method, jlocation catch_loc) {
    hits h;
    hits_init(&h);
    hits_begin(&h, 0, EK_EXCEPTION, SP_ALL);
    values_out_location(&h.body, env, method, loc);
    values_out_tagged(&h.body, env, exception);
    if (catch_method != NULL) values_out_location(&h.body, env, catch_method, catch_loc);
    else values_out_null_location(&h.body);
    callback_hits_send(env, NULL, t->id, &h);
    filters_hits_free(&h);
}

static int (*start_agent)(JNIEnv *env);

void wake_arm(int (*start)(JNIEnv *env)) { start_agent = start; }

/* The throwing thread connects the link; with suspend=y it stops the other threads, waits for the
 * daemon and reports the start event (the reference reports its trigger to the first debugger and
 * suspends every thread then), without it runs on at once (the reference drops the event when nobody
 * is attached yet). */
void wake_on_exception(JNIEnv *env, jthread thread, jmethodID method, jlocation loc, jobject exception,
                       jmethodID catch_method, jlocation catch_loc) {
    /* JNI calls below must not see (or lose) an exception pending on this thread. */
    jthrowable pending = (*env)->ExceptionOccurred(env);
    if (pending != NULL) (*env)->ExceptionClear(env);
    if (is_trigger(env, exception, catch_method != NULL) && claim_the_wake()) {
        jvmtiError err = (*base_g.jvmti)->SetEventNotificationMode(base_g.jvmti, JVMTI_DISABLE, JVMTI_EVENT_EXCEPTION, NULL);
        if (err != JVMTI_ERROR_NONE) base_log("disabling the wake-up Exception event: JVMTI error %d", err);
        if (base_g.opts.suspend) base_g.hello_flags |= HELLO_SUSPEND_ON_START | HELLO_STARTED_BY_EXCEPTION;
        base_log("woken by an exception (%s): connecting to the daemon", catch_method ? "caught" : "uncaught");
        /* includevirtualthreads=y follows threads from now on, as the reference starts at its trigger */
        bool started = start_agent != NULL && start_agent(env) == 0;
        if (!started) {
            fprintf(stderr, "jdwpd agent: cannot start the agent threads; the agent stays inactive\n");
            base_g.hello_flags &= ~(HELLO_SUSPEND_ON_START | HELLO_STARTED_BY_EXCEPTION);
        }
        if (started && base_g.opts.suspend) {
            thread_rec *t = callback_enter(env, thread);
            if (t != NULL) {
                stop_everything(env, t);
                if (link_wait_connected(base_g.opts.timeout_ms)) {
                    report(env, t, method, loc, exception, catch_method, catch_loc);
                } else {
                    base_log("suspend=y: no daemon within %ld ms, running", base_g.opts.timeout_ms);
                    base_g.hello_flags &= ~(HELLO_SUSPEND_ON_START | HELLO_STARTED_BY_EXCEPTION);
                    run_on(env, t);
                }
                callback_exit(env, t);  /* parks here until resumed */
            }
        }
    }
    if (pending != NULL) (*env)->Throw(env, pending);
}

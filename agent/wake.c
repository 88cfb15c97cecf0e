/* onthrow=/onuncaught= (the reference's options): the dormant agent and the exception that wakes it. */
#include <stdio.h>
#include <string.h>

#include "filters.h"

/* Until the exception the agent holds its capabilities (HotSpot grants them only at load) but has no
 * thread, no link and one enabled event, Exception.  The throwing thread then connects the link; with
 * suspend=y it waits for the daemon and reports the start event (the reference reports its trigger to
 * the first debugger and suspends every thread), without it runs on at once (the reference drops the
 * event when nobody is attached yet). */
static bool wake(JNIEnv *env, jobject exception, bool caught) {
    if (!G.vm_started) return false;  /* the reference, too, ignores what is thrown before VMInit */
    bool wanted = G.opts.onuncaught && !caught;
    if (!wanted && G.opts.onthrow != NULL) {
        jclass cls = (*env)->GetObjectClass(env, exception);
        char *sig = NULL;
        if (cls != NULL && (*G.jvmti)->GetClassSignature(G.jvmti, cls, &sig, NULL) == JVMTI_ERROR_NONE)
            wanted = strcmp(sig, G.opts.onthrow) == 0;  /* the class itself, not a subclass, as the reference */
        jvmti_free(sig);
        if (cls != NULL) (*env)->DeleteLocalRef(env, cls);
    }
    if (!wanted) return false;
    lock_enter();
    bool mine = G.dormant;  /* two threads may throw at once: one wakes the agent */
    G.dormant = false;
    lock_exit();
    if (!mine) return false;
    jvmtiError err = (*G.jvmti)->SetEventNotificationMode(G.jvmti, JVMTI_DISABLE, JVMTI_EVENT_EXCEPTION, NULL);
    if (err != JVMTI_ERROR_NONE) agent_log("disabling the wake-up Exception event: JVMTI error %d", err);
    if (G.opts.suspend) G.hello_flags |= HELLO_SUSPEND_ON_START | HELLO_STARTED_BY_EXCEPTION;
    agent_log("woken by an exception (%s): connecting to the daemon", caught ? "caught" : "uncaught");
    if (link_start(env) != 0) {
        fprintf(stderr, "jdwpd agent: cannot start the agent threads; the agent stays inactive\n");
        G.hello_flags &= ~(HELLO_SUSPEND_ON_START | HELLO_STARTED_BY_EXCEPTION);
        return false;
    }
    if (!G.opts.suspend) return false;
    if (!link_wait_connected(G.opts.timeout_ms)) {
        agent_log("suspend=y: no daemon within %ld ms, running", G.opts.timeout_ms);
        G.hello_flags &= ~(HELLO_SUSPEND_ON_START | HELLO_STARTED_BY_EXCEPTION);
        return false;
    }
    return true;
}

/* The exception that woke the agent is the first debugger's start event, as the reference reports its
 * trigger: request 0, every thread suspended until that debugger resumes. */
void wake_on_exception(JNIEnv *env, jthread thread, jmethodID method, jlocation loc, jobject exception,
                       jmethodID catch_method, jlocation catch_loc) {
    /* JNI calls below must not see (or lose) an exception pending on this thread. */
    jthrowable pending = (*env)->ExceptionOccurred(env);
    if (pending != NULL) (*env)->ExceptionClear(env);
    if (wake(env, exception, catch_method != NULL)) {
        thread_rec *t = callback_enter(env, thread);
        if (t != NULL) {
            hits h;
            hits_init(&h);
            hit_begin(&h, 0, EK_EXCEPTION, SP_ALL);
            ob_location(&h.body, env, method, loc);
            ob_tagged(&h.body, env, exception);
            if (catch_method != NULL) ob_location(&h.body, env, catch_method, catch_loc);
            else ob_null_location(&h.body);
            hits_send(env, t, t->id, &h);
            hits_free(&h);
            callback_exit(env, t);  /* parks here until resumed */
        }
    }
    if (pending != NULL) (*env)->Throw(env, pending);
}

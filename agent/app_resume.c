/* An application's Thread.resume() of a thread a debugger holds waits until the debugger lets that
 * thread go, as with the reference.  Until JDK 20 Thread.resume undoes a JVMTI suspension too (one
 * suspend state per thread in HotSpot), so a resume from the program would run a thread the debugger
 * believes suspended.  An internal breakpoint at Thread.resume's first instruction holds the caller;
 * from JDK 20 on Thread.resume only throws, and there is no breakpoint. */
#include <stdlib.h>

#include "app_resume.h"
#include "base.h"
#include "breakpoints.h"
#include "threads.h"

static jmethodID resume_method;

void app_resume_arm(JNIEnv *env) {
    if (resume_method != NULL || !base_g.caps.can_generate_breakpoint_events || !base_g.caps.can_access_local_variables)
        return;
    char *version = NULL;
    if ((*base_g.jvmti)->GetSystemProperty(base_g.jvmti, "java.vm.specification.version", &version) != JVMTI_ERROR_NONE)
        return;
    int feature = atoi(version);  /* "1.8" reads 1: older still, and Thread.resume works there */
    base_jvmti_free(version);
    if (feature >= 20) return;
    jmethodID m = (*env)->GetMethodID(env, base_g.cls_thread, "resume", "()V");
    if (m == NULL) {
        (*env)->ExceptionClear(env);
        return;
    }
    base_lock_enter();
    int err = breakpoints_add_internal(m, 0);
    base_lock_exit();
    if (err != 0) {
        base_log("the breakpoint at Thread.resume: JVMTI error %d", err);
        return;
    }
    resume_method = m;
    err = (*base_g.jvmti)->SetEventNotificationMode(base_g.jvmti, JVMTI_ENABLE, JVMTI_EVENT_BREAKPOINT, NULL);
    if (err != JVMTI_ERROR_NONE) base_log("enabling Breakpoint for Thread.resume: JVMTI error %d", err);
}

void app_resume_hold(JNIEnv *env, jthread resumer, jmethodID method, jlocation loc) {
    if (method != resume_method || loc != 0 || resume_method == NULL) return;
    jobject resumee = NULL;
    if ((*base_g.jvmti)->GetLocalObject(base_g.jvmti, resumer, 0, 0, &resumee) != JVMTI_ERROR_NONE || resumee == NULL)
        return;
    bool interrupted = false;
    base_lock_enter();
    for (;;) {
        /* Looked up again after each wait: a record may be freed meanwhile (ended, count 0). */
        thread_rec *r = threads_rec_find(env, resumee);
        if (r == NULL || r->is_agent || r->suspend_count == 0 || base_g.vm_dead) break;
        if (base_lock_wait(0) == JVMTI_ERROR_INTERRUPT) interrupted = true;
    }
    base_lock_exit();
    /* The program's interrupt, cleared by the raw-monitor wait, stays pending for it (as in park). */
    if (interrupted && base_g.caps.can_signal_thread) (*base_g.jvmti)->InterruptThread(base_g.jvmti, resumer);
    (*env)->DeleteLocalRef(env, resumee);
}

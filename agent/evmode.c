/* JVMTI event notification modes, counted (evmode.h). */
#include "base.h"
#include "breakpoints.h"
#include "evmode.h"
#include "vthreads.h"

static int event_refs[VT_MAX_EVENT + 1];  /* the JDK 17 header stops short of the virtual-thread events */

int evmode_enabled_count(void) {
    int n = 0;
    for (size_t i = 0; i < ARRAY_LEN(event_refs); i++) n += event_refs[i] > 0;
    return n;
}

void evmode_enable(jvmtiEvent ev, jthread thread, bool on) {
    if (thread != NULL) {
        (*base_g.jvmti)->SetEventNotificationMode(base_g.jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, ev, thread);
        return;
    }
    base_lock_enter();
    bool keep = !on && ev == JVMTI_EVENT_BREAKPOINT && breakpoints_internal_armed();  /* app_resume.c's */
    if (on ? event_refs[ev]++ == 0 : (event_refs[ev] > 0 && --event_refs[ev] == 0 && !keep)) {
        jvmtiError err = (*base_g.jvmti)->SetEventNotificationMode(base_g.jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, ev, NULL);
        if (err != JVMTI_ERROR_NONE) base_log("SetEventNotificationMode(%d, %d): %d", on, ev, err);
    }
    base_lock_exit();
}

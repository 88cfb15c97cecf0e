/* Compiled against a JDK 21+ jni.h/jvmti.h by tests/agent/test_vthreads_abi.py: every position that
 * agent/vthreads.h defines for the JDK 17 build must be where the newer headers name it. */
#include <stdio.h>

#include "vthreads.h"

static int failures;

static void check(int ok, const char *what) {
    if (!ok) {
        printf("MISMATCH %s\n", what);
        failures++;
    }
}

int main(void) {
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    vt_capability_set(&caps, VT_CAPABILITY_BIT, true);
    check(caps.can_support_virtual_threads == 1, "capability bit sets can_support_virtual_threads");
    caps.can_support_virtual_threads = 0;
    jvmtiCapabilities none;
    memset(&none, 0, sizeof none);
    check(memcmp(&caps, &none, sizeof caps) == 0, "capability bit sets nothing else");
    caps.can_support_virtual_threads = 1;
    check(vt_capability_get(&caps, VT_CAPABILITY_BIT), "capability bit reads can_support_virtual_threads");

    check(VT_EVENT_START == JVMTI_EVENT_VIRTUAL_THREAD_START, "VirtualThreadStart event number");
    check(VT_EVENT_END == JVMTI_EVENT_VIRTUAL_THREAD_END, "VirtualThreadEnd event number");
    check(VT_MAX_EVENT == JVMTI_MAX_EVENT_TYPE_VAL, "last event number");
    check(offsetof(jvmtiEventCallbacks, VirtualThreadStart) ==
              (VT_EVENT_START - JVMTI_MIN_EVENT_TYPE_VAL) * sizeof(vt_any_fn), "VirtualThreadStart callback slot");
    check(offsetof(jvmtiEventCallbacks, VirtualThreadEnd) ==
              (VT_EVENT_END - JVMTI_MIN_EVENT_TYPE_VAL) * sizeof(vt_any_fn), "VirtualThreadEnd callback slot");
    check(sizeof(vt_callbacks) == sizeof(jvmtiEventCallbacks), "callbacks size");

    check(offsetof(struct jvmtiInterface_1_, SuspendAllVirtualThreads) == (VT_FN_SUSPEND_ALL - 1) * sizeof(void *),
          "SuspendAllVirtualThreads function slot");
    check(offsetof(struct jvmtiInterface_1_, ResumeAllVirtualThreads) == (VT_FN_RESUME_ALL - 1) * sizeof(void *),
          "ResumeAllVirtualThreads function slot");
    check(offsetof(struct JNINativeInterface_, IsVirtualThread) == vt_jni_is_virtual_index() * sizeof(void *),
          "JNI IsVirtualThread slot");
    check(JVMTI_VERSION_21 == VT_JVMTI_VERSION_21, "JVMTI version 21");
    check(JNI_VERSION_21 == VT_JNI_VERSION_21, "JNI version 21");
    if (failures == 0) printf("OK\n");
    return failures != 0;
}

/* Virtual threads (JDK 21+): runtime detection, the capability, JNI IsVirtualThread and the
 * all-virtual suspension functions (their callbacks: vt_events.c).  See vthreads.h for why the
 * JDK 21 names are defined by position here. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "vthreads.h"

static bool runtime_21;
static bool held;
static vt_is_virtual_fn jni_is_virtual;

void vthreads_runtime_init(jvmtiEnv *jvmti) {
    jint version = 0;
    runtime_21 = (*jvmti)->GetVersionNumber(jvmti, &version) == JVMTI_ERROR_NONE &&
                 (version & ~0xFFFF) >= VT_JVMTI_VERSION_21;
}

bool vthreads_runtime(void) { return runtime_21; }
bool vthreads_supported(void) { return runtime_21 && held; }

void vthreads_want_capability(jvmtiCapabilities *want) {
    /* Without it JVMTI refuses thread-specific event control, and suspend-all, for virtual threads. */
    if (runtime_21) vt_capability_set(want, VT_CAPABILITY_BIT, true);
}

void vthreads_capabilities_held(const jvmtiCapabilities *caps) {
    held = runtime_21 && vt_capability_get(caps, VT_CAPABILITY_BIT);
}

static vt_is_virtual_fn is_virtual_fn(JNIEnv *env) {
    if (jni_is_virtual == NULL && runtime_21 && (*env)->GetVersion(env) >= VT_JNI_VERSION_21) {
        void *const *table = (void *const *)(const void *)*env;
        jni_is_virtual = (vt_is_virtual_fn)(vt_any_fn)table[vt_jni_is_virtual_index()];
    }
    return jni_is_virtual;
}

bool vthreads_is_virtual(JNIEnv *env, jthread thread) {
    if (!runtime_21 || thread == NULL) return false;
    vt_is_virtual_fn fn = is_virtual_fn(env);
    return fn != NULL && fn(env, thread);
}

static jvmtiError call_all(int slot, jint except_count, const jthread *except_list) {
    if (!vthreads_supported()) return JVMTI_ERROR_NONE;
    vt_all_fn fn = (vt_all_fn)(vt_any_fn)vt_jvmti_slot(base_g.jvmti, slot);
    if (fn == NULL) return JVMTI_ERROR_NOT_AVAILABLE;
    return fn(base_g.jvmti, except_count, except_list);
}

jvmtiError vthreads_suspend_all(jint except_count, const jthread *except_list) {
    return call_all(VT_FN_SUSPEND_ALL, except_count, except_list);
}

jvmtiError vthreads_resume_all(jint except_count, const jthread *except_list) {
    return call_all(VT_FN_RESUME_ALL, except_count, except_list);
}

jvmtiEvent vthreads_event_twin(jvmtiEvent ev) {
    if (!vthreads_supported()) return (jvmtiEvent)0;
    if (ev == JVMTI_EVENT_THREAD_START) return VT_EVENT_START;
    if (ev == JVMTI_EVENT_THREAD_END) return VT_EVENT_END;
    return (jvmtiEvent)0;
}

jint vthreads_callbacks_size(void) {
    /* A JDK 17 VM is handed exactly the struct it knows. */
    return runtime_21 ? (jint)sizeof(vt_callbacks) : (jint)sizeof(jvmtiEventCallbacks);
}

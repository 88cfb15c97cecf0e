/* Virtual threads (JDK 21+) in an agent built against the JDK 17 headers.
 *
 * CI has only JDK 17's jni.h and jvmti.h, which name none of what virtual threads added; the running
 * JVM may still be 21 or newer.  Everything the newer headers added and we use is defined here, by
 * position, once: each is used only after vthreads_runtime_init() found a JVM that has it, so on JDK 17
 * nothing changes.  tests/agent/test_vthreads_abi.py compiles this file against a JDK 21+ jvmti.h
 * and checks every position below against the names there.
 *
 *  - jvmtiCapabilities.can_support_virtual_threads: the bit after can_generate_sampled_object_alloc_events,
 *    bit 44 of the bit-field struct (17's header leaves it in the unnamed padding).
 *  - Events VirtualThreadStart (87) and VirtualThreadEnd (88): jvmtiEventCallbacks gained a slot for each
 *    after SampledObjectAlloc (86); the struct holds one function pointer per event from VMInit (50) on.
 *  - jvmtiInterface_1_ slots 118 and 119 (reserved in 17): SuspendAllVirtualThreads, ResumeAllVirtualThreads.
 *  - JNINativeInterface_: IsVirtualThread right after GetModule (JNI_VERSION_21). */
#ifndef JDWPD_VTHREADS_H
#define JDWPD_VTHREADS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define VT_JVMTI_VERSION_21 0x30150000
#define VT_JNI_VERSION_21 0x00150000

#define VT_CAPABILITY_BIT 44
#define VT_EVENT_START ((jvmtiEvent)87)
#define VT_EVENT_END ((jvmtiEvent)88)
#define VT_MAX_EVENT 88
#define VT_FN_SUSPEND_ALL 118  /* 1-based, as jvmti.h numbers its function slots */
#define VT_FN_RESUME_ALL 119

typedef void (*vt_any_fn)(void);
typedef void (JNICALL *vt_thread_event_fn)(jvmtiEnv *jvmti, JNIEnv *env, jthread thread);
typedef jvmtiError (JNICALL *vt_all_fn)(jvmtiEnv *env, jint except_count, const jthread *except_list);
typedef jboolean (JNICALL *vt_is_virtual_fn)(JNIEnv *env, jobject obj);

/* The callbacks struct as JDK 21 lays it out: 17's fields, then the two virtual-thread slots. */
typedef union vt_callbacks {
    jvmtiEventCallbacks cb;
    vt_any_fn slot[VT_MAX_EVENT - JVMTI_MIN_EVENT_TYPE_VAL + 1];
} vt_callbacks;

/* Bit n of the capabilities (the struct is unsigned-int bit fields, allocated from the low bit up). */
static inline void vt_capability_set(jvmtiCapabilities *c, int bit, bool on) {
    unsigned int words[sizeof *c / sizeof(unsigned int)];
    memcpy(words, c, sizeof words);
    unsigned int mask = 1u << (bit % 32);
    if (on) words[bit / 32] |= mask;
    else words[bit / 32] &= ~mask;
    memcpy(c, words, sizeof words);
}

static inline bool vt_capability_get(const jvmtiCapabilities *c, int bit) {
    unsigned int words[sizeof *c / sizeof(unsigned int)];
    memcpy(words, c, sizeof words);
    return (words[bit / 32] >> (bit % 32)) & 1u;
}

static inline void *vt_jvmti_slot(jvmtiEnv *jvmti, int one_based) {
    return ((void *const *)(const void *)*jvmti)[one_based - 1];
}

static inline size_t vt_jni_is_virtual_index(void) {
    return offsetof(struct JNINativeInterface_, GetModule) / sizeof(void *) + 1;
}

/* ---- vthreads.c ---------------------------------------------------------------------------- */
/* After GetEnv: is this a JVM with virtual threads?  Decides everything below. */
void vthreads_runtime_init(jvmtiEnv *jvmti);
bool vthreads_runtime(void);             /* JVMTI 21+ */
bool vthreads_supported(void);           /* and we hold can_support_virtual_threads */
void vthreads_capabilities_held(const jvmtiCapabilities *held);
void vthreads_want_capability(jvmtiCapabilities *want);
bool vthreads_is_virtual(JNIEnv *env, jthread thread);  /* false before 21 */
jvmtiError vthreads_suspend_all(jint except_count, const jthread *except_list);
jvmtiError vthreads_resume_all(jint except_count, const jthread *except_list);
/* The size of the callbacks struct to hand SetEventCallbacks (vt_events.c fills the slots). */
jint vthreads_callbacks_size(void);
/* The twin JVMTI event a thread start or end request needs for virtual threads (0: none). */
jvmtiEvent vthreads_event_twin(jvmtiEvent ev);

#endif

/* Virtual threads (JDK 21+): runtime detection, the capability, JNI IsVirtualThread, the all-virtual
 * suspension functions, and the VirtualThreadStart/End callbacks, which report JDWP THREAD_START and
 * THREAD_DEATH as the reference does (with PlatformThreadsOnly the filter that leaves them out).
 * See vthreads.h for why the JDK 21 names are defined by position here. */
#include <stdlib.h>
#include <string.h>

#include "filters.h"
#include "vthreads.h"

bool vt_include_option;
static bool runtime_21;
static bool held;
static vt_is_virtual_fn jni_is_virtual;

void vt_runtime_init(jvmtiEnv *jvmti) {
    jint version = 0;
    runtime_21 = (*jvmti)->GetVersionNumber(jvmti, &version) == JVMTI_ERROR_NONE &&
                 (version & ~0xFFFF) >= VT_JVMTI_VERSION_21;
}

bool vt_runtime(void) { return runtime_21; }
bool vt_supported(void) { return runtime_21 && held; }

void vt_want_capability(jvmtiCapabilities *want) {
    /* Without it JVMTI refuses thread-specific event control, and suspend-all, for virtual threads. */
    if (runtime_21) vt_capability_set(want, VT_CAPABILITY_BIT, true);
}

void vt_capabilities_held(const jvmtiCapabilities *caps) {
    held = runtime_21 && vt_capability_get(caps, VT_CAPABILITY_BIT);
}

static vt_is_virtual_fn is_virtual_fn(JNIEnv *env) {
    if (jni_is_virtual == NULL && runtime_21 && (*env)->GetVersion(env) >= VT_JNI_VERSION_21) {
        void *const *table = (void *const *)(const void *)*env;
        jni_is_virtual = (vt_is_virtual_fn)(vt_any_fn)table[vt_jni_is_virtual_index()];
    }
    return jni_is_virtual;
}

bool vt_is_virtual(JNIEnv *env, jthread thread) {
    if (!runtime_21 || thread == NULL) return false;
    vt_is_virtual_fn fn = is_virtual_fn(env);
    return fn != NULL && fn(env, thread);
}

static jvmtiError call_all(int slot, jint except_count, const jthread *except_list) {
    if (!vt_supported()) return JVMTI_ERROR_NONE;
    vt_all_fn fn = (vt_all_fn)(vt_any_fn)vt_jvmti_slot(G.jvmti, slot);
    if (fn == NULL) return JVMTI_ERROR_NOT_AVAILABLE;
    return fn(G.jvmti, except_count, except_list);
}

jvmtiError vt_suspend_all(jint except_count, const jthread *except_list) {
    return call_all(VT_FN_SUSPEND_ALL, except_count, except_list);
}

jvmtiError vt_resume_all(jint except_count, const jthread *except_list) {
    return call_all(VT_FN_RESUME_ALL, except_count, except_list);
}

jvmtiEvent vt_event_twin(jvmtiEvent ev) {
    if (!vt_supported()) return (jvmtiEvent)0;
    if (ev == JVMTI_EVENT_THREAD_START) return VT_EVENT_START;
    if (ev == JVMTI_EVENT_THREAD_END) return VT_EVENT_END;
    return (jvmtiEvent)0;
}

/* ---- includevirtualthreads=y: the live virtual threads, for AllThreads ------------------------
 * A hash set of global refs by identity hash, filled and emptied by the start and end callbacks: no
 * thread record, no object id, nothing the executor must sweep, for threads no debugger asks about. */

typedef struct vt_node {
    struct vt_node *next;
    jint hash;
    jobject ref;
} vt_node;

static vt_node **buckets;
static size_t nbuckets, ntracked;
static bool tracking;

static void track_grow(void) {
    size_t n = nbuckets ? nbuckets * 2 : 1024;
    vt_node **fresh = calloc(n, sizeof *fresh);
    if (fresh == NULL) return;  /* the chains only get longer */
    for (size_t i = 0; i < nbuckets; i++) {
        for (vt_node *v = buckets[i], *next; v; v = next) {
            next = v->next;
            size_t b = (size_t)(uint32_t)v->hash % n;
            v->next = fresh[b];
            fresh[b] = v;
        }
    }
    free(buckets);
    buckets = fresh;
    nbuckets = n;
}

/* Lock held. */
static void track_add(JNIEnv *env, jthread thread) {
    jint hash = 0;
    if ((*G.jvmti)->GetObjectHashCode(G.jvmti, thread, &hash) != JVMTI_ERROR_NONE) return;
    if (ntracked >= nbuckets) track_grow();
    if (nbuckets == 0) return;
    vt_node *v = malloc(sizeof *v);
    if (v == NULL) return;
    v->ref = (*env)->NewGlobalRef(env, thread);
    if (v->ref == NULL) {
        free(v);
        return;
    }
    v->hash = hash;
    size_t b = (size_t)(uint32_t)hash % nbuckets;
    v->next = buckets[b];
    buckets[b] = v;
    ntracked++;
}

/* Lock held. */
static void track_remove(JNIEnv *env, jthread thread) {
    jint hash = 0;
    if (nbuckets == 0 || (*G.jvmti)->GetObjectHashCode(G.jvmti, thread, &hash) != JVMTI_ERROR_NONE) return;
    for (vt_node **pp = &buckets[(size_t)(uint32_t)hash % nbuckets]; *pp; pp = &(*pp)->next) {
        vt_node *v = *pp;
        if (v->hash == hash && (*env)->IsSameObject(env, v->ref, thread)) {
            *pp = v->next;
            (*env)->DeleteGlobalRef(env, v->ref);
            free(v);
            ntracked--;
            return;
        }
    }
}

void vt_track_start(void) {
    if (!vt_include_option || !vt_supported()) return;
    /* Held for the VM's life, as the reference follows every virtual thread with this option. */
    tracking = true;
    event_enable(VT_EVENT_START, NULL, true);
    event_enable(VT_EVENT_END, NULL, true);
}

void threads_append_virtual(JNIEnv *env, outbuf *out, size_t count_at) {
    if (!tracking || out->oom || count_at + 4 > out->len) return;
    uint32_t n = be32(out->data + count_at);
    for (size_t i = 0; i < nbuckets; i++) {
        for (vt_node *v = buckets[i]; v; v = v->next) {
            ob_u64(out, obj_id(env, v->ref));
            n++;
        }
    }
    ob_put_u32_at(out, count_at, n);
}

static void report(JNIEnv *env, jthread thread, thread_rec *t, uint8_t kind) {
    ev_ctx c;
    memset(&c, 0, sizeof c);
    c.env = env;
    c.thread = thread;
    hits h;
    hits_init(&h);
    lock_enter();
    /* One born during a suspend-all starts suspended, as JVMTI keeps every virtual thread then. */
    if (kind == EK_THREAD_START && suspend_all_depth > 0 && t->suspend_count < suspend_all_depth)
        t->suspend_count = suspend_all_depth;
    match_kind(kind, &c, &h, NULL, NULL);
    lock_exit();
    hits_send(env, t, t->id, &h);
    hits_free(&h);
    ctx_free(&c);
}

/* Whether a thread start or end needs the thread's record: a request of that kind, or a suspend-all
 * (a thread born in one starts suspended).  Lock held. */
static bool wanted(uint8_t kind) {
    return filters_of(kind) != NULL || (kind == EK_THREAD_START && suspend_all_depth > 0);
}

static void JNICALL cb_vthread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void)jvmti;
    lock_enter();
    if (tracking) track_add(env, thread);
    bool report_it = wanted(EK_THREAD_START);
    lock_exit();
    if (!report_it) return;
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return;
    report(env, thread, t, EK_THREAD_START);
    callback_exit(env, t);
}

static void JNICALL cb_vthread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void)jvmti;
    lock_enter();
    if (tracking) track_remove(env, thread);
    bool report_it = wanted(EK_THREAD_DEATH);
    void *tls = NULL;
    if (!report_it && (*G.jvmti)->GetThreadLocalStorage(G.jvmti, NULL, &tls) == JVMTI_ERROR_NONE && tls &&
        !((thread_rec *)tls)->is_agent)
        thread_forget(env, tls);  /* a record some earlier event made: the executor frees it */
    lock_exit();
    if (!report_it) return;
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return;
    report(env, thread, t, EK_THREAD_DEATH);
    callback_exit(env, t);
    lock_enter();
    thread_forget(env, t);
    lock_exit();
}

void vt_events_init(vt_callbacks *cbs) {
    cbs->slot[VT_EVENT_START - JVMTI_MIN_EVENT_TYPE_VAL] = (vt_any_fn)(vt_thread_event_fn)cb_vthread_start;
    cbs->slot[VT_EVENT_END - JVMTI_MIN_EVENT_TYPE_VAL] = (vt_any_fn)(vt_thread_event_fn)cb_vthread_end;
}

jint vt_callbacks_size(void) {
    /* A JDK 17 VM is handed exactly the struct it knows. */
    return runtime_21 ? (jint)sizeof(vt_callbacks) : (jint)sizeof(jvmtiEventCallbacks);
}

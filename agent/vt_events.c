/* Virtual threads' own events (JDK 21+): VirtualThreadStart/End report JDWP THREAD_START and
 * THREAD_DEATH as the reference does (with PlatformThreadsOnly the filter that leaves them out), and
 * with includevirtualthreads=y they keep the set of live virtual threads AllThreads lists. */
#include <stdlib.h>

#include "base.h"
#include "buf.h"
#include "callback.h"
#include "evmode.h"
#include "filter_list.h"
#include "filters.h"
#include "hits.h"
#include "objects.h"
#include "threads.h"
#include "vt_events.h"
#include "vthreads.h"

bool vt_events_include_option;

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
    if ((*base_g.jvmti)->GetObjectHashCode(base_g.jvmti, thread, &hash) != JVMTI_ERROR_NONE) return;
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
    if (nbuckets == 0 || (*base_g.jvmti)->GetObjectHashCode(base_g.jvmti, thread, &hash) != JVMTI_ERROR_NONE) return;
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

void vt_events_track_start(void) {
    if (!vt_events_include_option || !vthreads_supported()) return;
    /* Held for the VM's life, as the reference follows every virtual thread with this option. */
    tracking = true;
    evmode_enable(VT_EVENT_START, NULL, true);
    evmode_enable(VT_EVENT_END, NULL, true);
}

void vt_events_threads_append_virtual(JNIEnv *env, outbuf *out, size_t count_at) {
    if (!tracking || out->oom || count_at + 4 > out->len) return;
    uint32_t n = buf_be32(out->data + count_at);
    for (size_t i = 0; i < nbuckets; i++) {
        for (vt_node *v = buckets[i]; v; v = v->next) {
            buf_out_u64(out, objects_id(env, v->ref));
            n++;
        }
    }
    buf_out_put_u32_at(out, count_at, n);
}

/* The skeleton (callback.h) with the start's suspend-all count taken in the same lock section as
 * the match.  No writer: the thread is the frame's. */
static void report(ev_call *e, uint8_t kind) {
    base_lock_enter();
    /* One born during a suspend-all starts suspended, as JVMTI keeps every virtual thread then. */
    if (kind == EK_THREAD_START && threads_suspend_all_depth > 0 && e->t->suspend_count < threads_suspend_all_depth)
        e->t->suspend_count = threads_suspend_all_depth;
    ev_match(e, kind, NULL, NULL);
    base_lock_exit();
    ev_exit(e);
}

/* Whether a thread start or end needs the thread's record: a request of that kind, or a suspend-all
 * (a thread born in one starts suspended).  Lock held. */
static bool wanted(uint8_t kind) {
    return filter_list_of(kind) != NULL || (kind == EK_THREAD_START && threads_suspend_all_depth > 0);
}

static void JNICALL cb_vthread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void)jvmti;
    base_lock_enter();
    if (tracking) track_add(env, thread);
    bool report_it = wanted(EK_THREAD_START);
    base_lock_exit();
    ev_call e;
    if (report_it && ev_enter(&e, env, thread, NULL, 0)) report(&e, EK_THREAD_START);
}

static void JNICALL cb_vthread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void)jvmti;
    base_lock_enter();
    if (tracking) track_remove(env, thread);
    bool report_it = wanted(EK_THREAD_DEATH);
    void *tls = NULL;
    if (!report_it && (*base_g.jvmti)->GetThreadLocalStorage(base_g.jvmti, NULL, &tls) == JVMTI_ERROR_NONE && tls &&
        !((thread_rec *)tls)->is_agent)
        threads_forget(env, tls);  /* a record some earlier event made: the executor frees it */
    base_lock_exit();
    ev_call e;
    if (!report_it || !ev_enter(&e, env, thread, NULL, 0)) return;
    report(&e, EK_THREAD_DEATH);
    base_lock_enter();
    threads_forget(env, e.t);
    base_lock_exit();
}

void vt_events_init(vt_callbacks *cbs) {
    cbs->slot[VT_EVENT_START - JVMTI_MIN_EVENT_TYPE_VAL] = (vt_any_fn)(vt_thread_event_fn)cb_vthread_start;
    cbs->slot[VT_EVENT_END - JVMTI_MIN_EVENT_TYPE_VAL] = (vt_any_fn)(vt_thread_event_fn)cb_vthread_end;
}


/* CLASS_UNLOAD: HotSpot has no unload event for agents, so while unloads are asked for, a second
 * JVMTI environment tags every class with its signature; the ObjectFree of a tagged class object is
 * its unload.  ObjectFree runs inside GC and may only queue (raw monitor + malloc); the writer thread
 * drains the queue and reports (as the reference's class tracking does at GC end). */
/* POSIX (clock_gettime, strdup, sockets) also where the build sets no feature macro. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "filters.h"

typedef struct unloaded {
    struct unloaded *next;
    char *signature;
} unloaded;

static jvmtiEnv *track;
static jrawMonitorID queue_lock;
static unloaded *queue;
static volatile bool active;

static void tag_class(jclass cls) {
    char *sig = NULL;
    if ((*track)->GetClassSignature(track, cls, &sig, NULL) != JVMTI_ERROR_NONE) return;
    char *copy = strdup(sig);
    (*track)->Deallocate(track, (unsigned char *)sig);
    jlong old = 0;
    (*track)->GetTag(track, cls, &old);
    if (old != 0 || copy == NULL || (*track)->SetTag(track, cls, (jlong)(intptr_t)copy) != JVMTI_ERROR_NONE)
        free(copy);
}

static void JNICALL on_object_free(jvmtiEnv *env, jlong tag) {
    (void)env;
    unloaded *u = malloc(sizeof *u);
    if (u == NULL) {
        free((char *)(intptr_t)tag);
        return;
    }
    u->signature = (char *)(intptr_t)tag;
    (*track)->RawMonitorEnter(track, queue_lock);
    u->next = queue;
    queue = u;
    (*track)->RawMonitorExit(track, queue_lock);
}

static void JNICALL on_class_prepare(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass klass) {
    (void)env; (void)jni; (void)thread;
    tag_class(klass);
}

/* The first CLASS_UNLOAD request starts tracking; it stays on (cheap: one tag per class). */
int unload_tracking_start(JNIEnv *env) {
    if (track != NULL) return 0;
    if ((*G.jvm)->GetEnv(G.jvm, (void **)&track, JVMTI_VERSION_1_2) != JNI_OK) {
        track = NULL;
        return LS_NOT_CAPABLE;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    caps.can_generate_object_free_events = 1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.ObjectFree = on_object_free;
    cb.ClassPrepare = on_class_prepare;
    if ((*track)->AddCapabilities(track, &caps) != JVMTI_ERROR_NONE ||
        (*track)->CreateRawMonitor(track, "jdwpd unloads", &queue_lock) != JVMTI_ERROR_NONE ||
        (*track)->SetEventCallbacks(track, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
        (*track)->SetEventNotificationMode(track, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL) != JVMTI_ERROR_NONE ||
        (*track)->SetEventNotificationMode(track, JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, NULL) != JVMTI_ERROR_NONE) {
        (*track)->DisposeEnvironment(track);
        track = NULL;
        return LS_NOT_CAPABLE;
    }
    jint n;
    jclass *classes;
    if ((*track)->GetLoadedClasses(track, &n, &classes) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < n; i++) {
            tag_class(classes[i]);
            (*env)->DeleteLocalRef(env, classes[i]);
        }
        (*track)->Deallocate(track, (unsigned char *)classes);
    }
    active = true;
    agent_log("class unload tracking on (%d classes)", (int)n);
    return 0;
}

bool unload_tracking_active(void) { return active; }

static void write_signature(outbuf *b, ev_ctx *c, void *arg) {
    (void)c;
    ob_str(b, arg);
}

/* Called by the writer thread, and before every event (the reference reports the unloads a GC did
 * before the next event); no locks held. */
void unload_report_pending(JNIEnv *env) {
    if (!active) return;
    /* HotSpot posts ObjectFree lazily; any use of the tracking env's tag map delivers the pending
     * ones, here on this thread. */
    jlong ignored;
    (*track)->GetTag(track, G.cls_class, &ignored);
    (*track)->RawMonitorEnter(track, queue_lock);
    unloaded *list = queue;
    queue = NULL;
    (*track)->RawMonitorExit(track, queue_lock);
    while (list) {
        unloaded *u = list;
        list = u->next;
        ev_ctx c;
        memset(&c, 0, sizeof c);
        c.env = env;
        /* Patterns match the dotted name, as for the other kinds. */
        const char *sig = u->signature;
        size_t n = strlen(sig);
        c.class_name = malloc(n + 1);
        if (c.class_name) {
            const char *s = sig;
            size_t len = n;
            if (sig[0] == 'L' && n >= 2) {
                s = sig + 1;
                len = n - 2;
            }
            for (size_t i = 0; i < len; i++) c.class_name[i] = s[i] == '/' ? '.' : s[i];
            c.class_name[len] = 0;
        }
        hits h;
        hits_init(&h);
        lock_enter();
        match_kind(EK_CLASS_UNLOAD, &c, &h, write_signature, (void *)sig);
        /* An unload suspends nothing, whatever its requests ask: the reference's composite for it says
         * NONE and holds no thread (JDI's EventSet.resume() then resumes nothing either). */
        h.policy = SP_NONE;
        lock_exit();
        hits_send_raw(env, NULL, 0, &h);
        hits_free(&h);
        ctx_free(&c);
        free(u->signature);
        free(u);
    }
}

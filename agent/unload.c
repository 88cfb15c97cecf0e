/* Class unloads.  HotSpot has no unload event for agents: a second JVMTI environment tags class
 * objects with a record (its id, its signature), and the ObjectFree of a tagged class object is its
 * unload.  Two levels:
 *  - watching (from OnLoad/OnAttach): only the classes whose id the agent hands out are tagged
 *    (objects_id), so the daemon hears that an id it may have cached facts under is dead (CLASS_UNLOADED
 *    link message) whether or not a debugger asked for unload events.  Cost: one tag per class sent;
 *    nothing per class load, nothing per event (a flag test), per GC one flag store and HotSpot's
 *    weak processing of those few tags.
 *  - tracking (from the first CLASS_UNLOAD request on): ClassPrepare on in this environment too and
 *    every loaded class tagged, so that every unload can be matched against the requests (as the
 *    reference's class tracking does).
 * ObjectFree runs where HotSpot posts it and may only queue (raw monitor, no allocation: the record
 * is the queue node); GarbageCollectionFinish only sets a flag.  The writer thread, and every thread
 * before it sends an event, drains the queue and reports (unload_report.c). */
/* POSIX (clock_gettime, strdup, sockets) also where the build sets no feature macro. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "unload.h"

typedef unload_rec tracked;

static jvmtiEnv *track;
static jrawMonitorID queue_lock;  /* the queue; taken by ObjectFree */
static jrawMonitorID tag_lock;    /* a class's GetTag/SetTag pair (never taken by ObjectFree) */
static tracked *queue;
static volatile bool active;   /* every class tagged, ClassPrepare on */
static volatile bool maybe_freed;  /* a GC finished or an ObjectFree was queued since the last drain */
static volatile bool tagged_any;   /* some class is tagged: there is something to report one day */

static void t_enter(jrawMonitorID m) {
    if ((*track)->RawMonitorEnter(track, m) != JVMTI_ERROR_NONE) base_log("unload: raw monitor enter failed");
}

static void t_exit(jrawMonitorID m) {
    if ((*track)->RawMonitorExit(track, m) != JVMTI_ERROR_NONE) base_log("unload: raw monitor exit failed");
}

/* Tag cls (once), and note its id if one is given.  Any thread, no agent lock held. */
static void tag_class(jclass cls, uint64_t id) {
    t_enter(tag_lock);
    jlong old = 0;
    if ((*track)->GetTag(track, cls, &old) != JVMTI_ERROR_NONE) {
        t_exit(tag_lock);
        return;
    }
    if (old != 0) {
        tracked *t = (tracked *)(intptr_t)old;
        if (id != 0) t->id = id;  /* alive (we hold a reference): no ObjectFree races this */
        t_exit(tag_lock);
        return;
    }
    char *sig = NULL;
    if ((*track)->GetClassSignature(track, cls, &sig, NULL) != JVMTI_ERROR_NONE) {
        t_exit(tag_lock);
        return;
    }
    size_t n = strlen(sig);
    tracked *t = malloc(sizeof *t + n + 1);
    if (t != NULL) {
        t->next = NULL;
        t->id = id;
        memcpy(t->signature, sig, n + 1);
        if ((*track)->SetTag(track, cls, (jlong)(intptr_t)t) != JVMTI_ERROR_NONE) free(t);
        else tagged_any = true;
    }
    if ((*track)->Deallocate(track, (unsigned char *)sig) != JVMTI_ERROR_NONE) base_log("unload: deallocate failed");
    t_exit(tag_lock);
}

static void JNICALL on_object_free(jvmtiEnv *env, jlong tag) {
    (void)env;
    tracked *t = (tracked *)(intptr_t)tag;
    t_enter(queue_lock);
    t->next = queue;
    queue = t;
    t_exit(queue_lock);
    maybe_freed = true;
}

static void JNICALL on_gc_finish(jvmtiEnv *env) {
    (void)env;
    maybe_freed = true;
}

static void JNICALL on_class_prepare(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass klass) {
    (void)env; (void)jni; (void)thread;
    tag_class(klass, 0);
}

/* OnLoad/OnAttach: the watching environment.  Without it the daemon just never hears of unloads. */
void unload_init(void) {
    jvmtiEnv *e = NULL;
    if ((*base_g.jvm)->GetEnv(base_g.jvm, (void **)&e, JVMTI_VERSION_1_2) != JNI_OK || e == NULL) {
        base_log("unload: no second JVMTI environment; class unloads go unreported");
        return;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    caps.can_generate_object_free_events = 1;
    caps.can_generate_garbage_collection_events = 1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.ObjectFree = on_object_free;
    cb.ClassPrepare = on_class_prepare;
    cb.GarbageCollectionFinish = on_gc_finish;
    jvmtiError err;
    if ((err = (*e)->AddCapabilities(e, &caps)) != JVMTI_ERROR_NONE ||
        (err = (*e)->CreateRawMonitor(e, "jdwpd unloads", &queue_lock)) != JVMTI_ERROR_NONE ||
        (err = (*e)->CreateRawMonitor(e, "jdwpd unload tags", &tag_lock)) != JVMTI_ERROR_NONE ||
        (err = (*e)->SetEventCallbacks(e, &cb, sizeof cb)) != JVMTI_ERROR_NONE ||
        (err = (*e)->SetEventNotificationMode(e, JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, NULL)) != JVMTI_ERROR_NONE ||
        (err = (*e)->SetEventNotificationMode(e, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL))
            != JVMTI_ERROR_NONE) {
        base_log("unload: class unload watching unavailable (JVMTI error %d)", (int)err);
        if ((*e)->DisposeEnvironment(e) != JVMTI_ERROR_NONE) base_log("unload: dispose failed");
        return;
    }
    track = e;
}

/* objects_id: the id of class object cls was just handed out. */
void unload_watch_class(jclass cls, uint64_t id) {
    if (track != NULL) tag_class(cls, id);
}

/* The first CLASS_UNLOAD request tags every class; it stays on (cheap: one tag per class). */
int unload_tracking_start(JNIEnv *env) {
    if (active) return 0;
    if (track == NULL) return LS_NOT_CAPABLE;
    if ((*track)->SetEventNotificationMode(track, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL) != JVMTI_ERROR_NONE)
        return LS_NOT_CAPABLE;
    jint n = 0;
    jclass *classes;
    if ((*track)->GetLoadedClasses(track, &n, &classes) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < n; i++) {
            tag_class(classes[i], 0);
            (*env)->DeleteLocalRef(env, classes[i]);
        }
        if ((*track)->Deallocate(track, (unsigned char *)classes) != JVMTI_ERROR_NONE)
            base_log("unload: deallocate failed");
    }
    active = true;
    base_log("class unload tracking on (%d classes)", (int)n);
    return 0;
}

/* Whether unloads may have to be reported (the writer polls every 100 ms, events drain first):
 * not before a class is tagged. */
bool unload_tracking_active(void) { return tagged_any; }

bool unload_tracking_on(void) { return active; }

/* Without a GC since the last call: one flag test, NULL. */
unload_rec *unload_take_pending(void) {
    if (track == NULL || !maybe_freed) return NULL;
    maybe_freed = false;
    /* HotSpot posts ObjectFree lazily; any use of the tracking env's tag map delivers the pending
     * ones, here on this thread. */
    jlong ignored;
    if ((*track)->GetTag(track, base_g.cls_class, &ignored) != JVMTI_ERROR_NONE) base_log("unload: GetTag failed");
    t_enter(queue_lock);
    tracked *list = queue;
    queue = NULL;
    t_exit(queue_lock);
    return list;
}

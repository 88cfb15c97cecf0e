/* Live frames: the locals of the calling thread's own top frames, read by a stack walk in the VM
 * (java.lang.LiveStackFrame through the agent's one class, agent/java/.../TopFrames.java) instead
 * of one JVMTI GetLocal* per value.  On HotSpot every GetLocal* of a platform thread is a VM
 * operation, a safepoint, even for the current thread inside its own callback (~75 us on JDK 17):
 * a walk costs a few microseconds for all the locals of the frames it takes.
 *
 * Only the thread that walks may be read (a callback's own thread), only outside the agent lock
 * (the walk runs Java code, which may load classes or collect garbage), and every value is
 * checked: a frame whose bytecode index is not the one JVMTI reports, a slot whose kind is not
 * the one asked, or a compiled frame's null reference (maybe an object the compiler replaced by
 * its fields, which only JVMTI brings back) answers false and the caller reads it through JVMTI. */
#ifndef JDWPD_LIVE_H
#define JDWPD_LIVE_H

#include "base.h"

#define LIVE_MAX_FRAMES 32

typedef struct live_view {
    jint count;                             /* frames taken; 0: none (not loaded, or no walk) */
    jobjectArray frames;                    /* local ref */
    jobjectArray locals[LIVE_MAX_FRAMES];   /* local refs */
    jint bci[LIVE_MAX_FRAMES];              /* -1: unreadable */
    bool compiled[LIVE_MAX_FRAMES];         /* its null references may be scalar-replaced objects */
    int64_t cost_ns;                        /* the walk's, charged to the first quota it served */
    bool charged;
} live_view;

/* Executor thread: define the class and look up what a walk needs, once.  False: not available
 * (another VM, a failure, logged once); readers then use JVMTI. */
bool live_enable(JNIEnv *env);

/* True inside a walk of this thread: its callbacks ignore the walk's own events. */
bool live_walking(void);

/* Walks the current thread's top `count` frames into `lv` (empty when live frames are off or the
 * walk fails).  Never under the agent lock. */
void live_load(JNIEnv *env, live_view *lv, jint count);

/* A local of frame `depth`, as JVMTI's GetLocal<tag> would read it, if the view has that frame at
 * `expect_bci` and the slot holds that kind of value.  Object values are new local refs. */
bool live_local(JNIEnv *env, live_view *lv, jint depth, jlocation expect_bci, jint slot, char tag, jvalue *out);

/* Slots of interpreted frame `depth` at `expect_bci` (slots.c learns kinds from them): the count,
 * or -1 where the view has no such frame; then per slot 1 a reference (*obj: a new local ref or
 * NULL), 0 a primitive (*bits: the slot's 64 bits), -1 unreadable. */
jint live_slot_count(JNIEnv *env, live_view *lv, jint depth, jlocation expect_bci);
int live_slot(JNIEnv *env, live_view *lv, jint depth, jint slot, jlong *bits, jobject *obj);

void live_release(JNIEnv *env, live_view *lv);

#endif

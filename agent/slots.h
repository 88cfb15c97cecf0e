/* Slots in place: the locals of the event thread's own top frame at a breakpoint, read where the
 * interpreter keeps them, with no call into the VM for a primitive (a reference becomes a JNI
 * local ref through its slot, as a native method's arguments do).
 *
 * A breakpoint's frame is always interpreted, and it is the thread's last Java frame while the
 * callback runs.  HotSpot publishes where that frame is (its frame anchor, found through the
 * VMStructs table libjvm exports for its serviceability agent); the interpreter's frame layout is
 * fixed by the platform (x86_64 here).  Nothing of that is trusted: every hit checks that the
 * frame found holds the breakpoint's Method* and bytecode pointer, and that its locals sit where
 * the layout puts them for the method's max_locals; any difference and the reader walks (live.h).
 * Those checks themselves read HotSpot's memory, so none of it is tried on a JDK the suites do not
 * run it on (hotspot_gate.h: 17, 21 and 25 today); there every local is read by a walk.
 *
 * What each slot holds at a location (a reference or not) is learned from the first walk at that
 * location on each thread (kept per thread, forgotten when breakpoints change), which also checks
 * every slot's value against the one read in place; a mismatch turns
 * reading in place off for the VM's life (logged).  So a slot is never read as a reference unless
 * the VM's own oop map, through the walk, said it is one at that bytecode. */
#ifndef JDWPD_SLOTS_H
#define JDWPD_SLOTS_H

#include "base.h"
#include "live.h"

#define SLOTS_KNOWN 128  /* slots whose kind a location remembers; beyond them, a walk reads */

typedef struct slot_kinds slot_kinds;

typedef struct slots_view {
    intptr_t *locals;          /* slot s at locals[-s]; NULL: not readable in place */
    jint max_locals;
    const void *method;        /* its Method* (a redefined method is another one) */
    jlocation loc;
    const slot_kinds *kinds;   /* this location's, learned by a walk; NULL: not learned yet */
} slots_view;

/* Executor thread, once, after live_enable: find what is needed, or stay off (another VM, another
 * platform, an untested JDK, -Djdwpd.frameLocals=false).  Logged when off for a reason. */
bool slots_enable(JNIEnv *env);

/* The current thread's frame at its breakpoint `method`@`loc`, from a Breakpoint callback only.
 * False (and v->locals NULL) where the frame is not the one the checks expect. */
bool slots_open(JNIEnv *env, jmethodID method, jlocation loc, slots_view *v);

/* Learn the location's slot kinds from a walk `lv` of the same frame, checking every value. */
void slots_learn(JNIEnv *env, slots_view *v, live_view *lv, jlocation loc);

/* A local as JVMTI's GetLocal<tag> would read it, if the location's kinds say the slot holds that
 * kind of value.  Object values are new local refs. */
bool slots_local(JNIEnv *env, const slots_view *v, jint slot, char tag, jvalue *out);

/* Breakpoints changed (lock held): locations learned before may now be other methods' bytecode. */
void slots_forget_all(void);

#endif

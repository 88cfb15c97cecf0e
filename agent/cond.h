/* Condition programs run in the event callback (cond.c): bounded, no allocation, every operand checked. */
#ifndef JDWPD_COND_H
#define JDWPD_COND_H

#include "base.h"
#include "cond_parse.h"
#include "live.h"
#include "slots.h"

/* A stack cell: its type (I J F D L K) and value; K is a string constant (index in v.i). */
typedef struct ext_cell {
    jvalue v;
    char t;
} ext_cell;

/* How the locals and `this` a program or capture read were read: in place, by a walk, or through JVMTI. */
typedef struct ext_local_reads {
    uint32_t walked, by_jvmti, in_frame;
} ext_local_reads;

/* Where a program runs: the event thread's top frame, and its locals if a walk read them. */
typedef struct ext_frame {
    jthread thread;
    jmethodID method;
    jlocation loc;
    live_view *live;  /* NULL or empty: locals through JVMTI */
    ext_local_reads reads;
    const slots_view *slots;  /* NULL: none read in place (slots.h) */
} ext_frame;

/* Evaluate a program on the current thread's top frame; 0 with *out set, or an XR_* reason. */
int cond_eval(JNIEnv *env, const ext_prog *p, ext_frame *at, ext_cell *out);

/* The same inside the caller's JNI local frame: an object result stays valid in it (captures). */
int cond_run(JNIEnv *env, const ext_prog *p, ext_frame *at, ext_cell *out);

#endif

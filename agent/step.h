/* The step machine: min/line x into/over/out with SINGLE_STEP, FRAME_POP, METHOD_ENTRY, EXCEPTION_CATCH. */
#ifndef JDWPD_STEP_H
#define JDWPD_STEP_H

#include "threads.h"

struct filter;
int step_start(JNIEnv *env, struct filter *f, jthread thread, int size, int depth);
void step_stop(JNIEnv *env, struct filter *f);
void step_single_step(JNIEnv *env, thread_rec *t, jthread thread, jmethodID m, jlocation loc);
void step_frame_pop(JNIEnv *env, thread_rec *t, jthread thread, bool by_exception);
void step_exception_catch(JNIEnv *env, thread_rec *t, jthread thread);  /* an exception caught in the top frame */
bool step_single_stepping(thread_rec *t);  /* single-step events on for this thread now */
void step_method_entry(JNIEnv *env, thread_rec *t, jthread thread, jmethodID m);

#endif

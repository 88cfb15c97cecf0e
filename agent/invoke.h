/* INVOKE on a thread parked at an event: the slot in its record, run by the parked thread. */
#ifndef JDWPD_INVOKE_H
#define JDWPD_INVOKE_H

#include "buf.h"
#include "threads.h"

int invoke_submit(JNIEnv *env, uint32_t req_id, inbuf *in);
void invoke_run_pending(JNIEnv *env, thread_rec *t);  /* in the parked thread, lock held */
bool invoke_is_runnable(thread_rec *t);  /* handed over and not started */
void invoke_drop_pending(JNIEnv *env, thread_rec *t);  /* lock held */
int invoke_detach(JNIEnv *env, inbuf *in, outbuf *out);  /* executor of INVOKE_DETACH */

#endif

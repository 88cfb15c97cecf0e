/* INVOKE on a thread parked at an event: the slot in its record, run by the parked thread. */
#ifndef JDWPD_INVOKE_H
#define JDWPD_INVOKE_H

#include "buf.h"
#include "threads.h"

void invoke_run_pending(JNIEnv *env, thread_rec *t);  /* in the parked thread, lock held */
bool invoke_is_runnable(thread_rec *t);  /* handed over and not started */
void invoke_drop_pending(JNIEnv *env, thread_rec *t);  /* lock held */
/* INVOKE (invoke_invoke: the parked thread replies when the call returns) and INVOKE_DETACH
 * (invoke_invoke_detach): LINK_HANDLERS_INVOKE, link_protocol.h. */
LINK_HANDLERS_INVOKE(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

#endif

/* Co-located events: hits that wait for the breakpoint at the same place (colocate.c). */
#ifndef JDWPD_COLOCATE_H
#define JDWPD_COLOCATE_H

#include "filters.h"
#include "threads.h"

/* The thread's deferred hits: into h, first (into non-NULL), or sent on their own. */
void colocate_flush_deferred(JNIEnv *env, thread_rec *t, hits *into);
/* Hits deferred to a breakpoint that never came (cleared in between) go out on their own. */
void colocate_flush_stale_deferred(JNIEnv *env, thread_rec *t, jmethodID m, jlocation loc);
/* h's hits at (m, loc) sent, or kept for the breakpoint there (defer_to_step: for the step event). */
void colocate_send_or_defer(JNIEnv *env, thread_rec *t, hits *h, jmethodID m, jlocation loc, bool defer_to_step);
/* The step machine's stop at (method, loc), co-located like the other kinds. */
void colocate_report_step(JNIEnv *env, thread_rec *t, jthread thread, jmethodID method, jlocation loc, int32_t request_id,
                 uint8_t policy);

#endif

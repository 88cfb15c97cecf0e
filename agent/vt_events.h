/* Virtual threads' start and end callbacks, and includevirtualthreads=y (vt_events.c). */
#ifndef JDWPD_VT_EVENTS_H
#define JDWPD_VT_EVENTS_H

#include "buf.h"
#include "vthreads.h"

void vt_events_init(vt_callbacks *cbs);  /* the VirtualThreadStart/End slots */
/* includevirtualthreads=y: AllThreads lists the virtual threads the agent has seen start. */
extern bool vt_events_include_option;
void vt_events_track_start(void);  /* VMInit: with includevirtualthreads=y, follow every virtual thread */
/* ALL_THREADS: append the live virtual threads (includevirtualthreads=y) to the list whose u32 count is
 * at count_at.  Lock held. */
void vt_events_threads_append_virtual(JNIEnv *env, outbuf *out, size_t count_at);

#endif

/* Captures: what a logpoint or snapshot reads at a hit, as one blob (capture.c). */
#ifndef JDWPD_CAPTURE_H
#define JDWPD_CAPTURE_H

#include "buf.h"
#include "cond.h"

/* The blob of one capture at the current thread's hit. */
void capture_write(JNIEnv *env, const ext_capture *cap, jthread thread, jmethodID method, jlocation loc,
                   bool walk, ext_local_reads *reads, outbuf *out);  /* walk: not under the agent lock (live.h) */
#endif

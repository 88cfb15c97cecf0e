/* Captures: what a logpoint or snapshot reads at a hit, as one blob (capture.c). */
#ifndef JDWPD_CAPTURE_H
#define JDWPD_CAPTURE_H

#include "buf.h"
#include "cond.h"

/* The blob of one capture at the current thread's hit.  walk: not under the agent lock, so locals
 * may be read by a walk (live.h); at_breakpoint: in a Breakpoint callback, so the top frame's may
 * be read in place (slots.h). */
void capture_write(JNIEnv *env, const ext_capture *cap, jthread thread, jmethodID method, jlocation loc,
                   bool walk, bool at_breakpoint, ext_local_reads *reads, outbuf *out);
#endif

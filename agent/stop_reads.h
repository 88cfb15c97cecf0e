/* Reads at a stop, done in the event's callback (stop_reads.c).  protocol/link.py hands ARM_READS to
 * this file (LINK_HANDLERS_STOP_READS, link_protocol.h). */
#ifndef JDWPD_STOP_READS_H
#define JDWPD_STOP_READS_H

#include "base.h"
#include "buf.h"
#include "threads.h"

LINK_HANDLERS_STOP_READS(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

/* At a stop of one thread (its suspend policy applied), before its EVENT is framed in b: where
 * (method, loc) is armed, a STOP_READS frame at b's start; its length (0: nothing written). */
size_t stop_reads_write(JNIEnv *env, thread_rec *t, uint64_t thread_id, jthread thread, jmethodID method,
                        jlocation loc, outbuf *b);

#endif

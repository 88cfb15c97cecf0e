/* The executors of exec_threads.c: the link requests about threads and their frames.
 * protocol/link.py hands them to this file; each is exec_threads_<kind in lower case>, listed by
 * LINK_HANDLERS_EXEC_THREADS (link_protocol.h) and looked up by dispatch.c. */
#ifndef JDWPD_EXEC_THREADS_H
#define JDWPD_EXEC_THREADS_H

#include "buf.h"

LINK_HANDLERS_EXEC_THREADS(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

#endif

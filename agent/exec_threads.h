/* The executors of exec_threads.c, by link request kind. */
#ifndef JDWPD_EXEC_THREADS_H
#define JDWPD_EXEC_THREADS_H

#include "buf.h"

executor_fn exec_threads_lookup(uint16_t kind);

#endif

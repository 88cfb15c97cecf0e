/* The executors of exec_objects.c, by link request kind. */
#ifndef JDWPD_EXEC_OBJECTS_H
#define JDWPD_EXEC_OBJECTS_H

#include "buf.h"

executor_fn exec_objects_lookup(uint16_t kind);

#endif

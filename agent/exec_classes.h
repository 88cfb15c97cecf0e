/* The executors of exec_classes.c, by link request kind. */
#ifndef JDWPD_EXEC_CLASSES_H
#define JDWPD_EXEC_CLASSES_H

#include "buf.h"

executor_fn exec_classes_lookup(uint16_t kind);

#endif

/* The executors of exec_vm.c, by link request kind. */
#ifndef JDWPD_EXEC_VM_H
#define JDWPD_EXEC_VM_H

#include "buf.h"

executor_fn exec_vm_lookup(uint16_t kind);

#endif

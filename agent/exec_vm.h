/* The executors of exec_vm.c: the link requests about the VM as a whole: classes, threads and
 * groups, suspend-all, ids, heap, modules.  protocol/link.py hands them to this file; each is
 * exec_vm_<kind in lower case>, listed by LINK_HANDLERS_EXEC_VM (link_protocol.h) and looked up by
 * dispatch.c. */
#ifndef JDWPD_EXEC_VM_H
#define JDWPD_EXEC_VM_H

#include "buf.h"

LINK_HANDLERS_EXEC_VM(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

#endif

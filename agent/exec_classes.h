/* The executors of exec_classes.c: the link requests about classes and methods.  protocol/link.py
 * hands them to this file; each is exec_classes_<kind in lower case>, listed by
 * LINK_HANDLERS_EXEC_CLASSES (link_protocol.h) and looked up by dispatch.c. */
#ifndef JDWPD_EXEC_CLASSES_H
#define JDWPD_EXEC_CLASSES_H

#include "buf.h"

LINK_HANDLERS_EXEC_CLASSES(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

#endif

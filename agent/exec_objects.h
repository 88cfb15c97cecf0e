/* The executors of exec_objects.c: the link requests about objects, strings and arrays.
 * protocol/link.py hands them to this file; each is exec_objects_<kind in lower case>, listed by
 * LINK_HANDLERS_EXEC_OBJECTS (link_protocol.h) and looked up by dispatch.c. */
#ifndef JDWPD_EXEC_OBJECTS_H
#define JDWPD_EXEC_OBJECTS_H

#include "buf.h"

LINK_HANDLERS_EXEC_OBJECTS(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

#endif

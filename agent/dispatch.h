/* Link request kind -> executor. */
#ifndef JDWPD_DISPATCH_H
#define JDWPD_DISPATCH_H

#include "buf.h"

/* Execute one request (reader thread); writes the reply frame (or hands it over, INVOKE). */
void dispatch_request(JNIEnv *env, uint32_t id, uint16_t kind, const uint8_t *body, size_t len);
executor_fn exec_lookup(uint16_t kind);

#endif

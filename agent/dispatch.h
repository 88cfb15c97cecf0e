/* Link request kind -> its handler. */
#ifndef JDWPD_DISPATCH_H
#define JDWPD_DISPATCH_H

#include "buf.h"

/* Execute one request (reader thread); writes the reply frame (or hands it over, INVOKE). */
void dispatch_request(JNIEnv *env, uint32_t id, uint16_t kind, const uint8_t *body, size_t len);
/* SET_REQUEST, CLEAR_REQUEST, CLEAR_ALL_REQUESTS, RELEASE_START and EXIT: dispatch_<kind> (LINK_HANDLERS_DISPATCH). */
LINK_HANDLERS_DISPATCH(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

#endif

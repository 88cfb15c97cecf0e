/* Growing output buffers and bounds-checked input buffers for link frames (big-endian). */
#ifndef JDWPD_BUF_H
#define JDWPD_BUF_H

#include <jni.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link_protocol.h"

typedef struct outbuf {
    uint8_t *data;
    size_t len, cap;
    bool oom;
} outbuf;

void buf_out_init(outbuf *b, size_t reserve);
void buf_out_free(outbuf *b);
void buf_out_bytes(outbuf *b, const void *p, size_t n);
void buf_out_u8(outbuf *b, uint8_t v);
void buf_out_u16(outbuf *b, uint16_t v);
void buf_out_u32(outbuf *b, uint32_t v);
void buf_out_u64(outbuf *b, uint64_t v);
void buf_out_str(outbuf *b, const char *s);  /* NULL writes "" */
void buf_out_blob(outbuf *b, const void *p, uint32_t n);
void buf_out_put_u32_at(outbuf *b, size_t pos, uint32_t v);
/* A frame: reserve the header, fill the body, then finish with the header. */
void buf_out_frame_begin(outbuf *b);
void buf_out_frame_end(outbuf *b, uint32_t id, uint16_t kind, uint16_t status);
/* The same for a frame begun at start (a buffer that holds frames one after another). */
void buf_out_frame_end_at(outbuf *b, size_t start, uint32_t id, uint16_t kind, uint16_t status);

typedef struct inbuf {
    const uint8_t *data;
    size_t len, pos;
    bool bad;  /* sticky: a read past the end or a malformed field */
} inbuf;

uint8_t buf_in_u8(inbuf *b);
uint16_t buf_in_u16(inbuf *b);
uint32_t buf_in_u32(inbuf *b);
uint64_t buf_in_u64(inbuf *b);
int32_t buf_in_i32(inbuf *b);
/* Returns a malloc'd NUL-terminated copy (caller frees) or NULL with b->bad set. */
char *buf_in_str(inbuf *b);
/* Points into the buffer; length in *n. */
const uint8_t *buf_in_blob(inbuf *b, uint32_t *n);
bool buf_in_done(inbuf *b);  /* consumed exactly, nothing bad */

uint32_t buf_be32(const uint8_t *p);
uint16_t buf_be16(const uint8_t *p);
uint64_t buf_be64(const uint8_t *p);

/* An executor's request must be read to its end, nothing bad in it. */
#define PARSED(in) do { if (!buf_in_done(in)) return LS_BAD_MESSAGE; } while (0)

/* The handlers of link requests, by the table link_protocol.h generates (LINK_HANDLERS; dispatch.c
 * looks every request up in it).  An executor (FILLS) reads the request from in, writes reply body
 * fields to out and returns a status; a replier (REPLIES) sends its reply itself, later if it likes
 * (INVOKE), or returns a non-zero status for dispatch.c to reply with. */
typedef int (*executor_fn)(JNIEnv *env, inbuf *in, outbuf *out);
typedef int (*replier_fn)(JNIEnv *env, uint32_t id, inbuf *in);
/* A handler module's header declares its handlers from its generated list:
 * LINK_HANDLERS_<FILE>(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES). */
#define BUF_DECLARE_FILLS(kind, fn) int fn(JNIEnv *env, inbuf *in, outbuf *out);
#define BUF_DECLARE_REPLIES(kind, fn) int fn(JNIEnv *env, uint32_t id, inbuf *in);

#endif

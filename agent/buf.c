/* Big-endian encode/decode buffers for link frames. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"

void buf_out_init(outbuf *b, size_t reserve) {
    b->len = 0;
    b->oom = false;
    b->cap = reserve ? reserve : 64;
    b->data = malloc(b->cap);
    if (b->data == NULL) {
        b->cap = 0;
        b->oom = true;
    }
}

void buf_out_free(outbuf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static bool ob_grow(outbuf *b, size_t n) {
    if (b->oom) return false;
    if (b->len + n <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n) cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (p == NULL) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void buf_out_bytes(outbuf *b, const void *p, size_t n) {
    if (n == 0 || !ob_grow(b, n)) return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void buf_out_u8(outbuf *b, uint8_t v) { buf_out_bytes(b, &v, 1); }

void buf_out_u16(outbuf *b, uint16_t v) {
    uint8_t p[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    buf_out_bytes(b, p, 2);
}

void buf_out_u32(outbuf *b, uint32_t v) {
    uint8_t p[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    buf_out_bytes(b, p, 4);
}

void buf_out_u64(outbuf *b, uint64_t v) {
    buf_out_u32(b, (uint32_t)(v >> 32));
    buf_out_u32(b, (uint32_t)v);
}

/* The JVM hands out modified UTF-8 (U+0000 as C0 80, supplementary characters as two 3-byte
 * surrogates); the link carries standard UTF-8, which is what JDWP strings are.  Lone surrogates are
 * left as they are (the daemon decodes with surrogatepass). */
void buf_out_str(outbuf *b, const char *s) {
    size_t n = s ? strlen(s) : 0;
    size_t at = b->len;
    buf_out_u32(b, 0);
    uint32_t written = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] == 0xC0 && i + 1 < n && p[i + 1] == 0x80) {
            buf_out_u8(b, 0);
            written++;
            i += 2;
        } else if (p[i] == 0xED && i + 5 < n && (p[i + 1] & 0xF0) == 0xA0 && (p[i + 2] & 0xC0) == 0x80 &&
                   p[i + 3] == 0xED && (p[i + 4] & 0xF0) == 0xB0 && (p[i + 5] & 0xC0) == 0x80) {
            uint32_t hi = 0xD000u | ((uint32_t)(p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F);
            uint32_t lo = 0xD000u | ((uint32_t)(p[i + 4] & 0x3F) << 6) | (p[i + 5] & 0x3F);
            uint32_t cp = 0x10000u + ((hi - 0xD800u) << 10) + (lo - 0xDC00u);
            uint8_t u[4] = {(uint8_t)(0xF0 | (cp >> 18)), (uint8_t)(0x80 | ((cp >> 12) & 0x3F)),
                            (uint8_t)(0x80 | ((cp >> 6) & 0x3F)), (uint8_t)(0x80 | (cp & 0x3F))};
            buf_out_bytes(b, u, 4);
            written += 4;
            i += 6;
        } else {
            buf_out_u8(b, p[i]);
            written++;
            i++;
        }
    }
    buf_out_put_u32_at(b, at, written);
}

void buf_out_blob(outbuf *b, const void *p, uint32_t n) {
    buf_out_u32(b, n);
    buf_out_bytes(b, p, n);
}

void buf_out_put_u32_at(outbuf *b, size_t pos, uint32_t v) {
    if (b->oom || pos + 4 > b->len) return;
    b->data[pos] = (uint8_t)(v >> 24);
    b->data[pos + 1] = (uint8_t)(v >> 16);
    b->data[pos + 2] = (uint8_t)(v >> 8);
    b->data[pos + 3] = (uint8_t)v;
}

void buf_out_frame_begin(outbuf *b) {
    uint8_t zero[LINK_HEADER_SIZE] = {0};
    buf_out_bytes(b, zero, sizeof zero);
}

void buf_out_frame_end(outbuf *b, uint32_t id, uint16_t kind, uint16_t status) {
    buf_out_frame_end_at(b, 0, id, kind, status);
}

void buf_out_frame_end_at(outbuf *b, size_t start, uint32_t id, uint16_t kind, uint16_t status) {
    if (b->oom || b->len < start + LINK_HEADER_SIZE) return;
    if (status != 0) b->len = start + LINK_HEADER_SIZE;  /* a failed request has no body */
    buf_out_put_u32_at(b, start, (uint32_t)(b->len - start));
    buf_out_put_u32_at(b, start + 4, id);
    b->data[start + 8] = (uint8_t)(kind >> 8);
    b->data[start + 9] = (uint8_t)kind;
    b->data[start + 10] = (uint8_t)(status >> 8);
    b->data[start + 11] = (uint8_t)status;
}

uint32_t buf_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
uint16_t buf_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
uint64_t buf_be64(const uint8_t *p) { return ((uint64_t)buf_be32(p) << 32) | buf_be32(p + 4); }

static const uint8_t *ib_take(inbuf *b, size_t n) {
    if (b->bad || n > b->len - b->pos) {
        b->bad = true;
        return NULL;
    }
    const uint8_t *p = b->data + b->pos;
    b->pos += n;
    return p;
}

uint8_t buf_in_u8(inbuf *b) {
    const uint8_t *p = ib_take(b, 1);
    return p ? p[0] : 0;
}
uint16_t buf_in_u16(inbuf *b) {
    const uint8_t *p = ib_take(b, 2);
    return p ? buf_be16(p) : 0;
}
uint32_t buf_in_u32(inbuf *b) {
    const uint8_t *p = ib_take(b, 4);
    return p ? buf_be32(p) : 0;
}
uint64_t buf_in_u64(inbuf *b) {
    const uint8_t *p = ib_take(b, 8);
    return p ? buf_be64(p) : 0;
}
int32_t buf_in_i32(inbuf *b) { return (int32_t)buf_in_u32(b); }

const uint8_t *buf_in_blob(inbuf *b, uint32_t *n) {
    *n = buf_in_u32(b);
    const uint8_t *p = ib_take(b, *n);
    if (p == NULL) *n = 0;
    return p;
}

char *buf_in_str(inbuf *b) {
    uint32_t n;
    const uint8_t *p = buf_in_blob(b, &n);
    if (p == NULL && b->bad) return NULL;
    char *s = malloc((size_t)n + 1);
    if (s == NULL) {
        b->bad = true;
        return NULL;
    }
    if (n) memcpy(s, p, n);
    s[n] = 0;
    return s;
}

bool buf_in_done(inbuf *b) { return !b->bad && b->pos == b->len; }

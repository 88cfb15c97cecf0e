/* HMAC-SHA256 for the link's handshake. */
#ifndef JDWPD_SHA256_H
#define JDWPD_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void sha256_hmac(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t msglen, uint8_t out[32]);
bool sha256_ct_equal(const uint8_t *a, const uint8_t *b, size_t n);

#endif

/* Compiled event requests (filters) and the event context they are matched against. */
#ifndef JDWPD_FILTERS_H
#define JDWPD_FILTERS_H

#include "base.h"
#include "buf.h"
#include "filter_list.h"
#include "hits.h"
#include "threads.h"


void filters_hits_free(hits *h);
/* Matches every live filter of kind against c (lock held); each match appends a hit with writer's data. */
void filters_match_kind(uint8_t kind, ev_ctx *c, hits *h, hit_writer w, void *arg);
/* Two kinds raised by one JVMTI event (METHOD_EXIT and ..._WITH_RETURN_VALUE), hits newest request first
 * across both, as the reference's single handler chain orders them. */
void filters_match_two_kinds(uint8_t k1, hit_writer w1, uint8_t k2, hit_writer w2, ev_ctx *c, hits *h, void *arg);
bool filters_matches(filter *f, ev_ctx *c);
void filters_expire_pending(JNIEnv *env);  /* remove expired filters (lock held) */
void filters_ctx_free(ev_ctx *c);
/* Sends one EVENT frame: suspend policy applied first (lock taken inside); callback_hits_send (callback.h)
 * reports pending class unloads first. */
void filters_hits_send_raw(JNIEnv *env, thread_rec *t, uint64_t thread_id, hits *h);

/* OnLoad: the step machine (step.c) starts and stops with its STEP request.  Handed over at load,
 * so that the filters need not know the machine, which matches its own filter against them. */
void filters_init(int (*step_start)(JNIEnv *env, filter *f, jthread thread, int size, int depth),
                  void (*step_stop)(JNIEnv *env, filter *f));

/* The executor's side: SET_REQUEST, CLEAR_REQUEST, CLEAR_ALL_REQUESTS (breakpoints, watches and
 * steps installed and removed with their requests). */
int filters_set(JNIEnv *env, inbuf *in);
void filters_clear(JNIEnv *env, int32_t request_id);
void filters_clear_all(JNIEnv *env);
int filters_count(void);

#endif

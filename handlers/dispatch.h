/*
 * Dispatcher: the firmware's entry for packets the hardware does not
 * implement, keyed on packet type (paper, step 2: "check the type and jump
 * to the matching code").
 */
#ifndef HANDLERS_DISPATCH_H
#define HANDLERS_DISPATCH_H

#include <stdint.h>
#include "hal/rx.h"

typedef enum rx_action (*rx_handler_fn)(struct rx_packet *p);

/* Install @fn for @type (replacing any earlier one; NULL removes it). */
void dispatch_register(uint8_t type, rx_handler_fn fn);

/*
 * Install @fn for writes held on an RVATLB or PATLB miss (NULL removes it).
 * It may refill the TLB and return RX_RETRY, or rewrite p->raddr with the
 * NIC address and return RX_CONTINUE (the paper's miss-continue), or NACK.
 */
void dispatch_register_miss(rx_handler_fn fn);

/*
 * Hand @p back to the hardware now with @action (normally RX_DONE: the
 * paper's barrier step 3, "set the core IDLE"), so that the pipeline moves
 * on while the handler goes on working; the handler then returns
 * RX_RELEASED. Everything the handler needs of the packet must be read
 * before. Returns the command's result.
 */
uint32_t dispatch_release(struct rx_packet *p, enum rx_action action);

/* Decide the fate of @p. Types without a handler are NACKed (NO_HANDLER);
 * TLB misses without a miss handler are NACKed (NO_TRANSLATION). Counted in
 * the firmware statistics (fwstats.h). */
enum rx_action dispatch_packet(struct rx_packet *p);

/*
 * @type has an assembly fast path at the exception vector (fast_path.S)
 * that serves its common case and leaves the rest to the handler.
 */
void dispatch_register_fast(uint8_t type);

/*
 * Serve a packet held in the pipeline (the Martini interrupt): decide,
 * hand the decision to the hardware, and once a CONTINUE's payload is in
 * memory, call the handler's p->written. Returns after that one packet, as
 * the paper's firmware takes one interrupt a packet (the interrupt, still
 * asserted if another is held, enters again at the vector); with
 * dispatch_batch (variant flag BATCH) it goes on until nothing is held or
 * the next packet's type has a fast path, which the vector takes. Returns
 * IRQ_STATUS as last read (its RESTART bit for the caller).
 */
extern int dispatch_batch;
uint32_t dispatch_service(void);

#endif

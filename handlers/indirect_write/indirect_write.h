/* Remote indirect write (paper, Sec. 3): the remote address names a pointer. */
#ifndef HANDLERS_INDIRECT_WRITE_H
#define HANDLERS_INDIRECT_WRITE_H

#include "hal/rx.h"

/*
 * Read the 64-bit pointer stored at the packet's remote address, aim the
 * write at pointer + the packet's offset in its transfer, and continue.
 * An unreadable pointer slot is NACKed with DN1_NACK_BAD_POINTER.
 */
enum rx_action indirect_write_handle(struct rx_packet *p);

#endif

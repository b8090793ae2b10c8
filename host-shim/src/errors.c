/* Status names (see dn.h). */
#include "dimmnet1/dn.h"

const char *dn_strerror(int status)
{
    switch (status) {
    case DN_OK:        return "success";
    case DN_EINVAL:    return "invalid argument";
    case DN_ERANGE:    return "address or length out of range";
    case DN_ETIMEDOUT: return "timed out";
    case DN_EIO:       return "host bus or shared memory I/O error";
    case DN_ELINKDOWN: return "link down: nothing sent";
    case DN_ENACK:     return "refused by the receiver (NACK)";
    case DN_ENOMEM:    return "out of memory";
    case DN_ENODEV:    return "no matching Martini NIC";
    case DN_ENOFW:     return "NIC firmware not running";
    case DN_ESTALE:    return "transfer too old: completions recycled";
    case DN_ERETRY:    return "retries exhausted: the receiver never accepted";
    case DN_ETRUNC:    return "message longer than the receive buffer";
    case DN_EBUSY:     return "busy: try again later";
    case DN_ENOFLASH:  return "board has no flash device (firmware loaded with -bios)";
    case DN_EBADIMG:   return "firmware image refused (dn_flash_write says why)";
    case DN_EVERIFY:   return "flash read-back differs from what was written";
    }
    return "unknown status";
}

#!/usr/bin/env python3
"""Write the seed corpus of the board's libFuzzer targets (tests/fuzz/corpus).

Each seed is an op stream as board/fuzz/dimmnet1_*_fuzz.c read it: an op
byte, then its arguments little-endian. The seeds reach what random bytes
rarely do: valid packets of every type, the frames of issue 13, timing
grants, host sync started by READY, TLB hits, misses and RETRY, firmware
sends. Run it again after changing the op formats:

    tests/fuzz/make-seeds.py tests/fuzz/corpus
"""
import os
import struct
import sys

# Link target ops (dimmnet1_link_fuzz.c)
L_PACKET, L_BAD, L_RAW, L_CONTROL, L_HOSTBUS, L_WINDOW, L_CLOCK, L_RXCMD = range(8)
L_FW_READY = 17          # OP_HOST_MISC with 0x10: FW_STATUS READY
L_CQ_CONSUME = 8
HANG_UP = 0xff
# Regs target ops (dimmnet1_regs_fuzz.c)
R_WRITE, R_READ, R_TLB, R_TX, R_PACKET, R_RXCMD, R_BAD, R_CQ = range(8)
R_MMU_ON, R_MMU_IRQ_ON, R_HOSTBUS = 0x8a, 0x9a, 0x87

PUSH, ACK, NACK, READ_REQ, READ_RSP, INDIRECT = 1, 2, 3, 4, 5, 0x40
ACK_REQ, VA = 1, 4
LLCM = 1 << 32


def u8(v): return struct.pack('<B', v & 0xff)
def u16(v): return struct.pack('<H', v & 0xffff)
def u32(v): return struct.pack('<I', v & 0xffffffff)
def u64(v): return struct.pack('<Q', v & 0xffffffffffffffff)


def packet(op, kind=4, rsel=1, typ=PUSH, flags=ACK_REQ, length=16, raddr=0x1000,
           xoff=0, payload=None, dst=0, dsel=0, seq=1, tag=0x1234, dep=2000,
           corrupt=None):
    """kind: 0-3 type as given, 4 PUSH, 5 firmware type, 6 READ_REQ, 7 ACK/NACK."""
    sel = dsel | kind << 2
    if payload is None:
        payload = bytes(range(length % 256)) * (length // 256 + 1)
    b = u8(op) + u8(sel) + u8(rsel) + u16(dst) + u8(typ) + u8(flags) + u16(length)
    b += u16(seq) + u32(tag) + u32(xoff) + u64(raddr) + payload[:length] + u16(dep)
    if corrupt:
        b += u16(corrupt[0]) + u8(corrupt[1])
    return b


def raw(data): return u8(L_RAW) + u8(len(data)) + data
def control(sel, magic=0, t=0): return u8(L_CONTROL) + u8(sel) + u32(magic) + u64(t)
def hostbus(sel, a0=0, a1=0, a2=0): return u8(L_HOSTBUS) + u8(sel) + u64(a0) + u64(a1) + u32(a2)
def clock(v): return u8(L_CLOCK) + u16(v)
def rx_cmd(cmd, op=L_RXCMD, raddr=None, rsel=1, reason=None):
    sel = (1 if raddr is not None else 0) | (2 if reason is not None else 0) | rsel << 4
    b = u8(op) + u8(sel) + u8(cmd - 1) + u64(raddr or 0)
    if reason is not None:
        b += u8(reason)
    return b


def botf(w, typ=PUSH, flags=ACK_REQ, dst=0, length=64, raddr=0x3000):
    hdr = u8(typ) + u8(flags) + u16(dst) + u16(length) + u16(7) + u32(0xb0f) + u32(0) + u64(raddr)
    return u8(L_WINDOW) + u8(1 | w << 2 | 0x80) + hdr


def aotf_channel(ch, size=64, raddr=0x100, dst=0, flags=0):
    c = u8(PUSH) + u8(flags) + u16(dst) + u32(size) + u64(raddr)
    return u8(L_WINDOW) + u8(2 | ch << 2 | 0x80) + c


def rdma_desc(d, length=3000, local=0, raddr=0x2000, dst=0):
    desc = u8(PUSH) + u8(ACK_REQ) + u16(dst) + u32(length) + u64(local) + u64(raddr)
    desc += u32(0x500) + u32(0) + u16(9)
    return u8(L_WINDOW) + u8(3 | d << 2 | 0x80) + desc


GRANT_FWD, GRANT_SAME, GRANT_NEG = 0, 1 << 2, 2 << 2
REACHED = 2

# Issue 13's frames, verbatim.
ISSUE_GRANT = bytes.fromhex('444e47310000001000000000000003e8')
ISSUE_GROUP_READ = bytes.fromhex(
    '444e4c31000000380000000000000000010400000001ff0000080000a0000001'
    '00000000010000000000000886e827950000000000800000')

common = {
    'push_ack': packet(L_PACKET),
    'push_llcm_user': packet(L_PACKET, rsel=5, raddr=0x10),
    'push_cq_refused': packet(L_PACKET, rsel=2, raddr=0x100),
    'push_edges': packet(L_PACKET, rsel=3, raddr=1 | 0x10 << 8) + packet(L_PACKET, rsel=3, raddr=4 | 0xf8 << 8),
    'push_otf': packet(L_PACKET, flags=ACK_REQ | 2, length=8, dsel=0) ,
    'push_group': packet(L_PACKET, dsel=2, dst=0),
    'push_other_node': packet(L_PACKET, dsel=3, dst=7),
    'read_req': packet(L_PACKET, kind=6, xoff=64, payload=struct.pack('>Q', 0x4000)),
    'read_req_range': packet(L_PACKET, kind=6, rsel=0, raddr=LLCM + 0x10000, xoff=64, payload=bytes(8)),
    'read_rsp': packet(L_PACKET, kind=0, typ=READ_RSP, flags=0, length=32, raddr=0x5000),
    'ack_nack': packet(L_PACKET, kind=7, typ=1) + packet(L_PACKET, kind=7, typ=0) + u8(L_CQ_CONSUME) + u8(1) + u32(0),
    'ack_with_payload': packet(L_PACKET, kind=0, typ=ACK, length=4),
    'indirect_continue': packet(L_PACKET, kind=5) + rx_cmd(1, raddr=0x8000),
    'indirect_discard': packet(L_PACKET, kind=5) + rx_cmd(2),
    'indirect_nack': packet(L_PACKET, kind=5) + rx_cmd(3, reason=2),
    'indirect_done': packet(L_PACKET, kind=5) + rx_cmd(4),
    'indirect_retry_bad': packet(L_PACKET, kind=5) + rx_cmd(5) + rx_cmd(2),
    'group_indirect_nack': packet(L_PACKET, kind=5, dsel=2) + rx_cmd(3, reason=3),
    'held_then_push': packet(L_PACKET, kind=5) + packet(L_PACKET) + rx_cmd(1, raddr=LLCM + 0x100),
    'bad_crc': packet(L_BAD, corrupt=(40, 0x10)),
    'bad_size': packet(L_BAD, corrupt=(6, 0x01)),
    'bad_version': packet(L_BAD, corrupt=(16, 0x02)),
    'raw_junk': raw(b'DNL1\x00\x00\x00\x08junkjunk'),
    'issue_grant': raw(ISSUE_GRANT),
    'issue_group_read': raw(ISSUE_GROUP_READ),
    'botf_kick': botf(0) + hostbus(2, 0) + botf(1, length=465) + hostbus(2, 1) + hostbus(2, 2),
    'aotf_store': aotf_channel(0) + hostbus(3, 0 << 40 | 4 << 32 | 8, 0xdeadbeef, 7) + hostbus(3, 0 << 40 | 8 << 32 | 60),
    'rdma_post': rdma_desc(0) + hostbus(4, 0) + rdma_desc(1, local=0xfffff0) + hostbus(4, 1),
    'hostbus_reads': hostbus(1, 0x100) + hostbus(1, 0x800) + hostbus(1, 0x802) + hostbus(1, 0x3c) + hostbus(0x38 | 5, 0, 0, 0) + u32(99) + u32(0x31484e44),
    'hostbus_clock': hostbus(5, 100) + hostbus(0x85, 2000000000),
    'link_down_kick': u8(HANG_UP) + u8(0) + botf(0) + hostbus(2, 0),
    'host_gone': u8(HANG_UP) + u8(1) + packet(L_PACKET),
}

sync = {
    'grant_push': control(GRANT_FWD, t=3) + packet(L_PACKET) + clock(600) + control(GRANT_FWD, t=3) + clock(600),
    'issue_grant_sync': raw(ISSUE_GRANT) + clock(1000),
    'grant_dup_neg': control(GRANT_FWD) + clock(300) + control(GRANT_SAME) + control(GRANT_NEG, t=5) + control(REACHED),
    'late_frames': control(GRANT_FWD, t=15) + clock(0x8000 | 20) + packet(L_PACKET, dep=0) + packet(L_PACKET, flags=ACK_REQ | 2, length=4, dep=0),
    'held_in_flight': control(GRANT_FWD, t=15) + packet(L_PACKET, kind=5) + packet(L_PACKET) + clock(900) + rx_cmd(4) + clock(900),
    'switch_gone': control(GRANT_FWD, t=2) + packet(L_PACKET) + u8(HANG_UP) + u8(0) + clock(2000),
    'botf_timed': control(GRANT_FWD, t=7) + botf(0) + hostbus(2, 0) + clock(1000) + control(GRANT_FWD),
}

hostsync = {
    'ready_requests': u8(L_FW_READY) + u8(0) + control(GRANT_FWD, t=15) + hostbus(0) + hostbus(1, 0x100)
    + hostbus(5, 300) + clock(0x8000 | 120) + control(GRANT_FWD, t=15) + clock(0x8000 | 5),
    'requests_before_ready': hostbus(1, 0) + hostbus(0) + clock(500) + u8(L_FW_READY) + u8(0) + clock(0x8000 | 110),
    'host_gone_queued': u8(L_FW_READY) + u8(0) + hostbus(2, 0) + hostbus(0) + u8(HANG_UP) + u8(1) + clock(0x8000 | 200),
    'many_requests': u8(L_FW_READY) + u8(0) + b''.join(hostbus(0) for _ in range(20)) + clock(0x8000 | 200),
}


def tlb(rva, e, ctx=0, vpage=0, ppn=0, hostpage=True, writable=True, raw_words=None):
    sel = (1 if rva else 0) | 2 | (4 if hostpage else 0) | (0 if writable else 8)
    w = raw_words or [ctx, 0, vpage, ppn]
    if not rva and raw_words is None:
        w = [0, ppn, 0, ppn]
    return u8(R_TLB) + u8(sel) + u8(e) + b''.join(u32(x) for x in w)


def va_push(op=R_PACKET, ctx=1, va=0x3010, length=32):
    return packet(op, rsel=4, raddr=ctx << 32 | va, length=length)


def tx(sel=0x12, typ=0, flags=ACK_REQ, dst=0, length=16, off=0x100):
    """sel: 1 unaligned allowed, 2 PUSH (no type byte), 4 sendable flags,
    8 16-bit len, 0x10 write the image (64 payload bytes follow)."""
    b = u8(R_TX) + u8(sel) + u16(off) + (b'' if sel & 2 else u8(typ)) + u8(flags) + u16(dst)
    b += (u16(length) if sel & 8 else u8(length)) + u16(3) + u32(0x77) + u64(0x100) + u32(0)
    return b + (bytes(64) if sel & 0x10 else b'')


regs = {
    'tlb_hit': tlb(True, 0, ctx=1, vpage=3, ppn=5) + va_push(),
    'tlb_hit_two_pages': tlb(True, 0, ctx=1, vpage=3, ppn=5) + tlb(True, 1, ctx=1, vpage=4, ppn=9) + va_push(va=0x3ff0, length=64),
    'tlb_readonly': tlb(True, 2, ctx=1, vpage=3, ppn=5, writable=False) + va_push(),
    'tlb_to_cq': tlb(True, 0, ctx=1, vpage=3, ppn=0, hostpage=False) + va_push(),
    'rvatlb_miss_retry': va_push() + tlb(True, 0, ctx=1, vpage=3, ppn=5) + rx_cmd(5, op=R_RXCMD),
    'rvatlb_miss_retry_miss': va_push() + rx_cmd(5, op=R_RXCMD) + rx_cmd(3, op=R_RXCMD, reason=6),
    'rvatlb_miss_continue': va_push() + rx_cmd(1, op=R_RXCMD, raddr=0x5000),
    'patlb_miss_retry': u8(R_MMU_ON) + packet(R_PACKET) + tlb(False, 0, ppn=1) + rx_cmd(5, op=R_RXCMD),
    'patlb_deny': u8(R_MMU_IRQ_ON) + tlb(False, 3, ppn=1, writable=False) + packet(R_PACKET),
    'patlb_and_rvatlb': u8(R_MMU_ON) + tlb(True, 0, ctx=1, vpage=3, ppn=5) + va_push() + tlb(False, 0, ppn=5) + rx_cmd(5, op=R_RXCMD),
    'held_regs': packet(R_PACKET, kind=5, length=40) + b''.join(u8(R_READ) + u8(2) + u16(o) for o in range(0x20, 0x74, 4))
    + u8(R_READ) + u8(0x80) + u16(0) + u8(0xfe) + u8(R_READ) + u8(0x81) + u16(0) + u8(0) + rx_cmd(4, op=R_RXCMD),
    'reg_writes': b''.join(u8(R_WRITE) + u8(0x82) + u16(0) + u32(v) + u8(o) for o, v in
                           [(0x3c // 4, 1), (0x30 // 4, 5), (0x54 // 4, 2), (0x18 // 4, 1), (0x6c // 4, 1), (0, 1)])
    + u8(R_WRITE) + u8(0) + u16(0x801) + u32(9) + u8(R_WRITE) + u8(1) + u16(0x40) + u32(9),
    'tx_send': tx() + tx(sel=0x13, off=0x101) + tx(sel=0x10, typ=ACK) + tx(sel=0x12, flags=0x80)
    + tx(sel=0x1a, off=0xffe0, length=40) + tx(sel=0x1a, length=3000) + tx(sel=0x02, off=0x100),
    'discard_malformed': packet(R_BAD, kind=5, corrupt=(45, 4)) + packet(R_PACKET, kind=5) + rx_cmd(2, op=R_RXCMD)
    + rx_cmd(2, op=R_RXCMD),
    'done_on_group': packet(R_PACKET, kind=5, dsel=2) + rx_cmd(4, op=R_RXCMD),
    'unknown_cmd': packet(R_PACKET, kind=5) + u8(R_RXCMD) + u8(4) + u8(77) + u64(0) + rx_cmd(4, op=R_RXCMD),
}


def write(top, name, seeds):
    d = os.path.join(top, name)
    os.makedirs(d, exist_ok=True)
    for k, v in seeds.items():
        with open(os.path.join(d, k), 'wb') as f:
            f.write(v)


top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus')
write(top, 'dimmnet1-link', common)
write(top, 'dimmnet1-link-sync', {**common, **sync})
write(top, 'dimmnet1-link-hostsync', {**sync, **hostsync, 'push_ack': common['push_ack'],
                                      'botf_kick': common['botf_kick']})
write(top, 'dimmnet1-regs', regs)

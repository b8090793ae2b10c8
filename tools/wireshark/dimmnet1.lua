-- Wireshark/tshark dissector for DIMMnet-1 packets (docs/hardware.md,
-- "Packets"), as the dimmnet1 board traces them: pcap, link type USER0.
--   tshark -X lua_script:tools/wireshark/dimmnet1.lua -r node0.pcap
-- Field names: dimmnet1.type, .flags (.flags.ack_req, .otf, .va), .src,
-- .dst, .len, .seq, .tag, .raddr, .xoff, .crc, .crc_ok, .reason, .payload.

local p = Proto("dimmnet1", "DIMMnet-1")

local types = {
    [0x01] = "PUSH", [0x02] = "ACK", [0x03] = "NACK",
    [0x04] = "READ_REQ", [0x05] = "READ_RSP",
    [0x40] = "INDIRECT_WRITE", [0x41] = "MESSAGE", [0x42] = "BARRIER",
    [0x43] = "CONTROL", [0x44] = "SOFT_INDIRECT", [0x45] = "BARRIER_PAPER",
    [0x46] = "ATOMIC", [0x47] = "MR_SYNC",
}
local reasons = {
    [0] = "none", [1] = "RANGE", [2] = "BAD_POINTER", [3] = "NO_HANDLER",
    [4] = "NO_FIRMWARE", [5] = "PROTECTION", [6] = "NO_TRANSLATION",
    [7] = "BUFFER_FULL", [8] = "TOO_LONG", [9] = "NO_BUFFER", [10] = "SEQUENCE",
    [11] = "BAD_MESSAGE", [12] = "BAD_PATH", [13] = "BARRIER_SETUP",
    [14] = "BARRIER_MEMBER", [15] = "BARRIER_EPOCH", [16] = "BAD_CONTROL",
    [17] = "BAD_ATOMIC", [18] = "INCARNATION", [19] = "NOT_RESIDENT",
}

local f = p.fields
f.version = ProtoField.uint8("dimmnet1.version", "Version")
f.type    = ProtoField.uint8("dimmnet1.type", "Type", base.HEX, types)
f.flags   = ProtoField.uint8("dimmnet1.flags", "Flags", base.HEX)
f.ack_req = ProtoField.bool("dimmnet1.flags.ack_req", "ACK requested", 8, nil, 0x01)
f.otf     = ProtoField.bool("dimmnet1.flags.otf", "AOTF (one host store)", 8, nil, 0x02)
f.va      = ProtoField.bool("dimmnet1.flags.va", "Remote virtual address", 8, nil, 0x04)
f.reason  = ProtoField.uint8("dimmnet1.reason", "NACK reason", base.DEC, reasons)
f.src     = ProtoField.uint16("dimmnet1.src", "Source node")
f.dst     = ProtoField.uint16("dimmnet1.dst", "Destination node")
-- Host ports (contract 1.27): a unicast address is node | port << 12.
f.src_node = ProtoField.uint16("dimmnet1.src.node", "Node", base.DEC, nil, 0x0fff)
f.src_port = ProtoField.uint16("dimmnet1.src.port", "Host port", base.DEC, nil, 0x3000)
f.dst_node = ProtoField.uint16("dimmnet1.dst.node", "Node", base.DEC, nil, 0x0fff)
f.dst_port = ProtoField.uint16("dimmnet1.dst.port", "Host port", base.DEC, nil, 0x3000)
f.len     = ProtoField.uint16("dimmnet1.len", "Payload length")
f.seq     = ProtoField.uint16("dimmnet1.seq", "Sequence")
f.tag     = ProtoField.uint32("dimmnet1.tag", "Tag", base.HEX)
f.raddr   = ProtoField.uint64("dimmnet1.raddr", "Remote address", base.HEX)
f.xoff    = ProtoField.uint32("dimmnet1.xoff", "Offset in transfer")
f.crc     = ProtoField.uint32("dimmnet1.crc", "CRC-32", base.HEX)
f.crc_ok  = ProtoField.bool("dimmnet1.crc_ok", "CRC good")
f.payload = ProtoField.bytes("dimmnet1.payload", "Payload")

-- CRC-32 (IEEE, reflected), as the NIC computes it: header with the CRC
-- field taken as zero, then the payload.
local crc_table = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if bit32.band(c, 1) == 1 then
            c = bit32.bxor(bit32.rshift(c, 1), 0xedb88320)
        else
            c = bit32.rshift(c, 1)
        end
    end
    crc_table[i] = c
end

local function crc32(tvb, len)
    local crc = 0xffffffff
    for i = 0, len - 1 do
        local b = (i >= 28 and i < 32) and 0 or tvb(i, 1):uint()
        crc = bit32.bxor(bit32.rshift(crc, 8),
                         crc_table[bit32.band(bit32.bxor(crc, b), 0xff)])
    end
    return bit32.bxor(crc, 0xffffffff)
end

-- An address as people read it: node, node.port for a host port above 0,
-- or the raw value (a group, 0xff00 + g).
local function addr(a)
    if a >= 0x1000 and a < 0x4000 then
        return string.format("%u.%u", a % 0x1000, math.floor(a / 0x1000))
    end
    return string.format("%u", a)
end

function p.dissector(tvb, pinfo, tree)
    if tvb:len() < 32 then
        return 0
    end
    pinfo.cols.protocol = "DIMMnet-1"
    local t = tree:add(p, tvb(0, tvb:len()))
    local ty = tvb(1, 1):uint()
    local len = tvb(8, 2):uint()
    t:add(f.version, tvb(0, 1))
    t:add(f.type, tvb(1, 1))
    local fl = t:add(f.flags, tvb(2, 1))
    fl:add(f.ack_req, tvb(2, 1))
    fl:add(f.otf, tvb(2, 1))
    fl:add(f.va, tvb(2, 1))
    t:add(f.reason, tvb(3, 1))
    local src = t:add(f.src, tvb(4, 2))
    src:add(f.src_node, tvb(4, 2))
    src:add(f.src_port, tvb(4, 2))
    local dst = t:add(f.dst, tvb(6, 2))
    if tvb(6, 2):uint() < 0xff00 then
        dst:add(f.dst_node, tvb(6, 2))
        dst:add(f.dst_port, tvb(6, 2))
    end
    t:add(f.len, tvb(8, 2))
    t:add(f.seq, tvb(10, 2))
    t:add(f.tag, tvb(12, 4))
    t:add(f.raddr, tvb(16, 8))
    t:add(f.xoff, tvb(24, 4))
    t:add(f.crc, tvb(28, 4))
    local whole = 32 + len == tvb:len()
    local ok = whole and crc32(tvb, tvb:len()) == tvb(28, 4):uint()
    t:add(f.crc_ok, ok)
    if len > 0 and tvb:len() > 32 then
        t:add(f.payload, tvb(32, tvb:len() - 32))
    end
    local name = types[ty] or string.format("type 0x%02x", ty)
    local info = string.format("%s -> %s %s tag 0x%x", addr(tvb(4, 2):uint()),
                               addr(tvb(6, 2):uint()), name, tvb(12, 4):uint())
    if ty == 0x03 then
        info = info .. " reason " .. (reasons[tvb(3, 1):uint()] or "?")
    elseif ty ~= 0x02 then
        info = info .. string.format(" raddr 0x%x len %u",
                                     tvb(16, 8):uint64():tonumber(), len)
    end
    if not ok then
        info = info .. " [BAD CRC or length]"
    end
    pinfo.cols.info = info
    return tvb:len()
end

DissectorTable.get("wtap_encap"):add(wtap.USER0, p)

#!/usr/bin/env python3
"""Calculation deals, independently of the Rust code: prints deal N of a variant, top card first.

Implements the shuffle documented in calculation/src/deal.rs (rand_core seed_from_u64 into
rand_pcg Pcg64, Fisher-Yates from the back with the high half of x*(i+1)); the engine test
deal_one_is_pinned was checked against it. Usage: calculation_deal.py N [standard|computer|superman]"""
import sys
M64=(1<<64)-1; M128=(1<<128)-1
def pcg32(state):
    state=(state*0x5851F42D4C957F2D+0xA17654E46FBE17F3)&M64
    xs=(((state>>18)^state)>>27)&0xffffffff
    rot=state>>59
    x=((xs>>rot)|(xs<<((32-rot)&31)))&0xffffffff
    return state,x.to_bytes(4,'little')
def seed_from_u64(s):
    b=b''
    for _ in range(8):
        s,c=pcg32(s); b+=c
    w=[int.from_bytes(b[i*8:i*8+8],'little') for i in range(4)]
    state=w[0]|(w[1]<<64); inc=(w[2]|(w[3]<<64))|1
    MUL=0x2360ED051FC65DA44385DF649FCCF645
    state=(state+inc)&M128
    state=(state*MUL+inc)&M128
    return [state,inc,MUL]
def next_u64(g):
    g[0]=(g[0]*g[2]+g[1])&M128
    s=g[0]; rot=s>>122; x=((s>>64)^s)&M64
    return ((x>>rot)|(x<<((64-rot)&63)))&M64
def deal(n,computer):
    cards=[]
    for r in range(1,14):
        cards+= [r]*(4 if computer or r>4 else 3)
    g=seed_from_u64(n)
    for i in range(len(cards)-1,0,-1):
        j=(next_u64(g)*(i+1))>>64
        cards[i],cards[j]=cards[j],cards[i]
    names={1:'A',11:'J',12:'Q',13:'K'}
    return ' '.join(names.get(c,str(c)) for c in cards)
if __name__ == "__main__":
    text = sys.argv[1] if len(sys.argv) > 1 else "1"
    if not (text.isdigit() and int(text) <= M64):
        sys.exit(f"bad deal number {text[:40]!r}: expected 0 to 2^64-1")
    n = int(text)
    variant = sys.argv[2] if len(sys.argv) > 2 else "standard"
    if variant not in ("standard", "computer", "superman"):
        sys.exit(f"unknown variant {variant[:40]!r}: expected standard, computer or superman")
    print(deal(n, variant == "computer"))

# Reference figures for tests/stats/*.test.ts, computed independently of lib/stats in python3
# (stdlib only: fractions, statistics.NormalDist, math). Run: python3 tests/stats/reference.py
from fractions import Fraction as F
from statistics import NormalDist
import math
M=(1<<64)-1
def sm64(seed):
    s=seed&M
    while True:
        s=(s+0x9e3779b97f4a7c15)&M
        z=s
        z=((z^(z>>30))*0xbf58476d1ce4e5b9)&M
        z=((z^(z>>27))*0x94d049bb133111eb)&M
        yield z^(z>>31)
def rotl(x,k): return ((x<<k)|(x>>(32-k)))&0xffffffff
def xo(seed):
    g=sm64(seed); a=next(g); b=next(g)
    s=[a&0xffffffff,a>>32,b&0xffffffff,b>>32]
    while True:
        r=(rotl((s[1]*5)&0xffffffff,7)*9)&0xffffffff
        t=(s[1]<<9)&0xffffffff
        s[2]^=s[0]; s[3]^=s[1]; s[1]^=s[2]; s[0]^=s[3]; s[2]^=t; s[3]=rotl(s[3],11)
        yield r
for seed in [1,0,-1,2**53+1]:
    g=xo(seed); print(seed,[next(g) for _ in range(4)])
z=NormalDist().inv_cdf(0.975)
def wilson(c,n,z=z):
    p=c/n; d=1+z*z/n; ce=(p+z*z/(2*n))/d; h=z/d*math.sqrt(p*(1-p)/n+z*z/(4*n*n)); return round(max(0,ce-h),4),round(min(1,ce+h),4)
for c,n in [(81,263),(15,148),(0,20),(1,29),(3,3)]: print('wilson',c,n,wilson(c,n))
print('wilson 99%',81,263,wilson(81,263,NormalDist().inv_cdf(0.995)))
def pak(n,c,k):
    if n-c<k: return F(1)
    m=F(1)
    for i in range(n-c+1,n+1): m*=1-F(k,i)
    return 1-m
def phk(n,c,k):
    return F(math.comb(c,k),math.comb(n,k))
for n,c,k in [(10,7,3),(5,4,2),(10,3,1),(10,3,2),(10,3,5),(10,0,3),(10,10,3),(5,2,4),(3,1,3),(20,7,10),(1,1,1),(1,0,1),(200,37,50)]:
    print('pk',n,c,k,round(float(pak(n,c,k)),12),round(float(phk(n,c,k)),12))
# suite: tasks sorted, k=min(k,n)
tasks=[("b",3,2),("a",5,1),("c",2,2)]
k=3
at=sum(pak(n,c,min(k,n)) for _,n,c in sorted(tasks))/3
ht=sum(phk(n,c,min(k,n)) for _,n,c in sorted(tasks))/3
print('suite',round(float(at),12),round(float(ht),12))
for p in [0.5,0.975,0.025,0.8,0.999,1e-10,0.3]: print('q',p,round(NormalDist().inv_cdf(p),12))
for x in [0,1.96,-1,2.5,-3]: print('cdf',x,round(NormalDist().cdf(x),6))
def n2(p1,p2,a=0.05,pw=0.8):
    za=NormalDist().inv_cdf(1-a/2); zb=NormalDist().inv_cdf(pw); pb=(p1+p2)/2
    return (za*math.sqrt(2*pb*(1-pb))+zb*math.sqrt(p1*(1-p1)+p2*(1-p2)))**2/(p1-p2)**2
for p1,p2,a,pw in [(0.5,0.6,0.05,0.8),(0.2,0.3,0.05,0.9),(0.7,0.5,0.01,0.8),(0.9,0.99,0.05,0.8)]: print('n',p1,p2,a,pw,n2(p1,p2,a,pw),math.ceil(n2(p1,p2,a,pw)))
def pw(p1,p2,n,a=0.05):
    za=NormalDist().inv_cdf(1-a/2); pb=(p1+p2)/2
    return NormalDist().cdf((abs(p1-p2)*math.sqrt(n)-za*math.sqrt(2*pb*(1-pb)))/math.sqrt(p1*(1-p1)+p2*(1-p2)))
print('power',round(pw(0.5,0.6,388),4), round(pw(0.2,0.3,100),4))
# mdd: bisection
def mdd(p1,n):
    lo,hi=0,1-p1
    while hi-lo>1e-9:
        m=(lo+hi)/2
        if m>0 and n2(p1,p1+m)<=n: hi=m
        else: lo=m
    return hi
print('mdd',round(mdd(0.5,388),4),round(mdd(0.5,40),4),round(mdd(0.2,100),4), n2(0.9,1.0))

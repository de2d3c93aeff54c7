# Sequential keep-alive checks of one pair by one user through the fleet's gateway (its full route and its bare
# route) and a second gateway on :18090, in interleaved triples; gateway CPU per request from /proc/<pid>/stat.
# usage: python3 sequential-one-user.py REQUESTS TRIPLES FLEET_DIR BASELINE_PID   (run from the repository root)
import http.client, subprocess, sys, time, statistics, os
main=os.getcwd(); fleet=sys.argv[3]
G=int(open(fleet+'/run/gateway.pid').read()); B=int(sys.argv[4])
tok=subprocess.run([main+'/graph','token','12'],capture_output=True,text=True,cwd=main).stdout
tok=[w for w in tok.split() if w.startswith('eyJ')][0]
def cpu(pid):
    f=open(f'/proc/{pid}/stat').read().rsplit(')',1)[1].split()
    return int(f[11])+int(f[12])
def run(port,path,pid,n):
    c=http.client.HTTPConnection('127.0.0.1',port); h={'Authorization':'Bearer '+tok}
    for _ in range(500): c.request('GET',path,headers=h); c.getresponse().read()
    a=cpu(pid); lat=[]
    for _ in range(n):
        t=time.perf_counter(); c.request('GET',path,headers=h); r=c.getresponse(); r.read(); lat.append(time.perf_counter()-t)
        assert r.status==200, r.status
    b=cpu(pid); c.close()
    return (b-a)*1e4/n, statistics.median(lat)*1e3
n=int(sys.argv[1]); pairs=int(sys.argv[2]); res={'new':[],'old':[],'bare':[]}
for i in range(pairs):
    for name,port,path,pid in (('new',8080,'/v1/users/12/following/13',G),('old',18090,'/v1/users/12/following/13',B),('bare',8080,'/internal/v1/users/12/following/13',G))[::1 if i%2==0 else -1]:
        c,p=run(port,path,pid,n); res[name].append((c,p)); print(i,name,f'cpu {c:.0f} us/req p50 {p:.3f} ms',flush=True)
for k,v in res.items(): print(k,'median cpu',statistics.median(x[0] for x in v),'median p50',round(statistics.median(x[1] for x in v),3))
print('new lower than old in', sum(1 for a,b in zip(res['new'],res['old']) if a[0]<b[0]),'of',pairs)

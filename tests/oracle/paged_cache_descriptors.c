/*
 * Differential test of the backend API's OPERATION_PAGED_CACHE_LOAD
 * descriptor (no handle needed): required attributes, the type and dims
 * rules of finalize, y's plain [B,H,S,D] versus transposed [B,H,D,S] form
 * (told by stride 1 on dim 2), set/get misuse. Built against FreeDNN and
 * against NVIDIA's cuDNN; lines not starting with '#' must agree.
 *
 * Left out on purpose: setting a non-tensor descriptor (NVIDIA's library
 * throws std::bad_alloc there) and a get with a wrong attribute type
 * (NVIDIA: BAD_PARAM; FreeDNN's shared descriptor layer:
 * BAD_PARAM_ATTRIBUTE_TYPE), and a count query (NULL elements) of a
 * tensor attribute (NVIDIA: BAD_PARAM for this descriptor; FreeDNN answers
 * the count, as NVIDIA does for other descriptors).
 */
#include <cudnn.h>
#include <stdint.h>
#include <stdio.h>
static void note(int st){char m[512];if(!st)return;m[0]=0;cudnnGetLastErrorString(m,sizeof m);printf("# %s\n",m);}
#define LINE(l,c) do{int s_=(int)(c);printf("%-40s -> %d\n",l,s_);note(s_);}while(0)
static cudnnBackendDescriptor_t TS(int64_t uid,int nd,const int64_t*d,const int64_t*s0,int dt,int virt){
  int64_t s[8];int i;cudnnBackendDescriptor_t t;cudnnDataType_t dtt=(cudnnDataType_t)dt;char v=(char)virt;int64_t al=16;int st;
  if(s0){for(i=0;i<nd;++i)s[i]=s0[i];}else{s[nd-1]=1;for(i=nd-2;i>=0;--i)s[i]=s[i+1]*d[i+1];}
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR,&t);
  cudnnBackendSetAttribute(t,CUDNN_ATTR_TENSOR_UNIQUE_ID,CUDNN_TYPE_INT64,1,&uid);
  cudnnBackendSetAttribute(t,CUDNN_ATTR_TENSOR_DATA_TYPE,CUDNN_TYPE_DATA_TYPE,1,&dtt);
  cudnnBackendSetAttribute(t,CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT,CUDNN_TYPE_INT64,1,&al);
  cudnnBackendSetAttribute(t,CUDNN_ATTR_TENSOR_DIMENSIONS,CUDNN_TYPE_INT64,nd,d);
  cudnnBackendSetAttribute(t,CUDNN_ATTR_TENSOR_STRIDES,CUDNN_TYPE_INT64,nd,s);
  cudnnBackendSetAttribute(t,CUDNN_ATTR_TENSOR_IS_VIRTUAL,CUDNN_TYPE_BOOLEAN,1,&v);
  st=cudnnBackendFinalize(t); if(st){printf("tensor %ld -> %d\n",(long)uid,st);note(st);}
  return t;}
#define T(u,n,d,dt,v) TS(u,n,d,0,dt,v)
static int OP(const char*label,cudnnBackendDescriptor_t c,cudnnBackendDescriptor_t y,cudnnBackendDescriptor_t s,cudnnBackendDescriptor_t p){
  cudnnBackendDescriptor_t op; cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR,&op);
  if(c)cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&c);
  if(y)cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&y);
  if(s)cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&s);
  if(p)cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&p);
  int st=cudnnBackendFinalize(op); LINE(label,st); cudnnBackendDestroyDescriptor(op); return st;}
#define F CUDNN_DATA_FLOAT
#define H CUDNN_DATA_HALF
#define I32 CUDNN_DATA_INT32
#define I64 CUDNN_DATA_INT64
static void layouts(void){
  int64_t dc[4]={12,3,4,8}, dy[4]={2,3,20,8}, ds[4]={2,1,1,1}, dp[4]={2,1,5,1};
  cudnnBackendDescriptor_t c=T(1,4,dc,H,0), s=T(3,4,ds,I32,0), p=T(4,4,dp,I32,0);
  {int64_t d[4]={2,3,8,20}; OP("y dims B,H,D,S packed",c,T(10,4,d,H,1),s,p);}
  {int64_t d[4]={2,3,8,20}, st[4]={480,160,1,8}; OP("y dims B,H,D,S strides S-major",c,TS(11,4,d,st,H,1),s,p);}
  {int64_t st[4]={480,160,1,20}; OP("y dims B,H,S,D, S innermost",c,TS(12,4,dy,st,H,1),s,p);}
  {int64_t st[4]={480,8,24,1}; OP("y BSHD strides",c,TS(13,4,dy,st,H,1),s,p);}
  {int64_t st[4]={96,8,24,1}; OP("container NB,BS,H,D strides",TS(14,4,dc,st,H,0),T(15,4,dy,H,1),s,p);}
  {int64_t st[4]={96,1,24,3}; OP("container odd strides",TS(16,4,dc,st,H,0),T(17,4,dy,H,1),s,p);}
  {int64_t d[4]={2,3,8,8}; int64_t pp[4]={2,1,2,1}; OP("D==S=8 packed",c,T(18,4,d,H,1),s,T(19,4,pp,I32,0));}
  {int64_t d[4]={2,3,8,8}, st[4]={192,64,1,8}; int64_t pp[4]={2,1,2,1}; OP("D==S=8 S-innermost",c,TS(20,4,d,st,H,1),s,T(21,4,pp,I32,0));}
  {int64_t d[4]={2,3,8,12}; int64_t pp[4]={2,1,3,1}; OP("y [2,3,8,12] P=3",c,T(22,4,d,H,1),s,T(23,4,pp,I32,0));}
  {int64_t d[4]={2,3,8,12}; int64_t pp[4]={2,1,2,1}; OP("y [2,3,8,12] P=2",c,T(24,4,d,H,1),s,T(25,4,pp,I32,0));}
  {int64_t d[4]={2,3,8,12}, st[4]={288,96,1,8}; int64_t pp[4]={2,1,3,1}; OP("y [2,3,8,12] S-major strides P=3",c,TS(26,4,d,st,H,1),s,T(27,4,pp,I32,0));}
  {int64_t d[4]={2,3,12,8}; int64_t dcc[4]={12,3,4,12}; int64_t pp[4]={2,1,2,1}; OP("c D=12 y [2,3,12,8] P=2",T(28,4,dcc,H,0),T(29,4,d,H,1),s,T(30,4,pp,I32,0));}
  {int64_t d[4]={2,3,12,8}, st[4]={288,96,1,12}; int64_t dcc[4]={12,3,4,12}; int64_t pp[4]={2,1,2,1}; OP("c D=12 y[2,3,12,8] strides(1 on dim2) P=2",T(31,4,dcc,H,0),TS(32,4,d,st,H,1),s,T(33,4,pp,I32,0));}
  {int64_t d[4]={2,3,12,8}, st[4]={288,96,1,12}; int64_t dcc[4]={12,3,4,12}; int64_t pp[4]={2,1,3,1}; OP("c D=12 y[2,3,12,8] strides(1 on dim2) P=3",T(34,4,dcc,H,0),TS(35,4,d,st,H,1),s,T(36,4,pp,I32,0));}
  {int64_t ss[4]={2,1,1,1}, st[4]={1,1,1,1}; OP("seq strides 1",c,T(40,4,dy,H,1),TS(41,4,ss,st,I32,0),p);}
  {int64_t d[4]={1,3,4,8}; int64_t dyy[4]={1,3,20,8}; int64_t ss[4]={1,1,1,1}; int64_t pp[4]={1,1,5,1}; OP("B=1",T(42,4,d,H,0),T(43,4,dyy,H,1),T(44,4,ss,I32,0),T(45,4,pp,I32,0));}
}
static void strides(void){
  int64_t dc[4]={12,3,4,8}, ds[4]={2,1,1,1}, dp[4]={2,1,5,1};
  cudnnBackendDescriptor_t c=T(1,4,dc,H,0), s=T(3,4,ds,I32,0), p=T(4,4,dp,I32,0);
  {int64_t d[4]={2,3,8,20}, st[4]={960,320,2,16}; OP("T? [2,3,8,20] st 960,320,2,16",c,TS(50,4,d,st,H,1),s,p);}
  {int64_t d[4]={2,3,8,20}, st[4]={960,320,1,1}; OP("T? [2,3,8,20] st ..,1,1",c,TS(51,4,d,st,H,1),s,p);}
  {int64_t d[4]={2,3,20,8}, st[4]={960,320,1,1}; OP("T? [2,3,20,8] st ..,1,1",c,TS(52,4,d,st,H,1),s,p);}
  {int64_t d[4]={2,3,20,8}, st[4]={960,320,8,8}; OP("T? [2,3,20,8] st ..,8,8",c,TS(53,4,d,st,H,1),s,p);}
  {int64_t d[4]={2,3,8,20}, st[4]={960,320,8,8}; OP("T? [2,3,8,20] st ..,8,8",c,TS(54,4,d,st,H,1),s,p);}
  {int64_t d[4]={2,3,8,20}, st[4]={960,320,3,24}; OP("T? [2,3,8,20] st ..,3,24",c,TS(55,4,d,st,H,1),s,p);}
  {int64_t d[4]={2,3,20,8}, st[4]={960,320,3,60}; OP("T? [2,3,20,8] st ..,3,60 (s<d stride)",c,TS(56,4,d,st,H,1),s,p);}
  {int64_t d[4]={2,3,8,20}, st[4]={960,1,24,3}; OP("T? [2,3,8,20] st 960,1,24,3",c,TS(57,4,d,st,H,1),s,p);}
  {int64_t d[4]={2,3,20,8}, st[4]={1,2,6,120}; OP("T? [2,3,20,8] st 1,2,6,120",c,TS(58,4,d,st,H,1),s,p);}
}
int main(void){setvbuf(stdout,NULL,_IONBF,0);
  /* B=2 H=3 S=20 D=8 BS=4 -> P=5, NB=12 */
  int64_t dc[4]={12,3,4,8}, dy[4]={2,3,20,8}, ds[4]={2,1,1,1}, dp[4]={2,1,5,1};
  cudnnBackendDescriptor_t c=T(1,4,dc,H,0), y=T(2,4,dy,H,1), yr=T(12,4,dy,H,0), s=T(3,4,ds,I32,0), p=T(4,4,dp,I32,0);
  OP("ok virtual y",c,y,s,p);
  OP("ok real y",c,yr,s,p);
  OP("empty",0,0,0,0);
  OP("no container",0,y,s,p); OP("no y",c,0,s,p); OP("no seq",c,y,0,p); OP("no table",c,y,s,0);
  int64_t dcf[4]={12,3,4,8}; cudnnBackendDescriptor_t cf=T(5,4,dcf,F,0); OP("container float, y half",cf,y,s,p);
  cudnnBackendDescriptor_t yf=T(6,4,dy,F,1); OP("container float y float",cf,yf,s,p);
  OP("container half y float",c,yf,s,p);
  cudnnBackendDescriptor_t s64=T(7,4,ds,I64,0),p64=T(8,4,dp,I64,0),sf=T(9,4,ds,F,0),pf=T(10,4,dp,F,0);
  OP("seq int64",c,y,s64,p); OP("table int64",c,y,s,p64); OP("seq float",c,y,sf,p); OP("table float",c,y,s,pf);
  {int64_t d[4]={12,3,4,16}; OP("D mismatch",T(20,4,d,H,0),y,s,p);}
  {int64_t d[4]={12,1,4,8}; OP("H container 1",T(21,4,d,H,0),y,s,p);}
  {int64_t d[4]={12,3,3,8}; int64_t pp[4]={2,1,7,1}; OP("BS 3 P 7",T(22,4,d,H,0),y,s,T(23,4,pp,I32,0));}
  {int64_t pp[4]={2,1,4,1}; OP("P too small (4*4<20)",c,y,s,T(24,4,pp,I32,0));}
  {int64_t pp[4]={2,1,8,1}; OP("P too large 8",c,y,s,T(25,4,pp,I32,0));}
  {int64_t pp[4]={3,1,5,1}; OP("table B 3",c,y,s,T(26,4,pp,I32,0));}
  {int64_t ss[4]={3,1,1,1}; OP("seq B 3",c,y,T(27,4,ss,I32,0),p);}
  {int64_t ss[4]={2,1,1,2}; OP("seq 2x1x1x2",c,y,T(28,4,ss,I32,0),p);}
  {int64_t pp[4]={2,2,5,1}; OP("table dim1 2",c,y,s,T(29,4,pp,I32,0));}
  {int64_t pp[4]={2,1,5,2}; OP("table dim3 2",c,y,s,T(30,4,pp,I32,0));}
  {int64_t d3[3]={12,4,8}; OP("container rank3",T(31,3,d3,H,0),y,s,p);}
  {int64_t d3[3]={2,20,8}; OP("y rank3",c,T(32,3,d3,H,1),s,p);}
  {int64_t d5[5]={12,3,4,8,1}; OP("container rank5",T(33,5,d5,H,0),y,s,p);}
  {int64_t d[4]={1,3,4,8}; OP("container NB1",T(34,4,d,H,0),y,s,p);}
  {int64_t d[4]={2,3,21,8}; int64_t pp[4]={2,1,6,1}; OP("S=21 P=6",c,T(35,4,d,H,1),s,T(36,4,pp,I32,0));}
  {int64_t d[4]={2,3,16,8}; int64_t pp[4]={2,1,5,1}; OP("S=16 P=5",c,T(37,4,d,H,1),s,T(38,4,pp,I32,0));}
  {int64_t d[4]={2,3,16,8}; int64_t pp[4]={2,1,4,1}; OP("S=16 P=4",c,T(39,4,d,H,1),s,T(40,4,pp,I32,0));}
  {int64_t d[4]={2,6,20,8}; OP("y H 6 container 3",c,T(41,4,d,H,1),s,p);}
  {int64_t d[4]={12,3,8,8}; OP("BS 8 P 5 S 20",T(42,4,d,H,0),y,s,p);}
  {int64_t d[4]={12,3,5,8}, pp[4]={2,1,4,1}; OP("BS 5 P 4",T(43,4,d,H,0),y,s,T(44,4,pp,I32,0));}
  OP("same uid y container",c,T(1,4,dy,H,1),s,p);
  OP("bf16",T(45,4,dc,CUDNN_DATA_BFLOAT16,0),T(46,4,dy,CUDNN_DATA_BFLOAT16,1),s,p);
  OP("double",T(47,4,dc,CUDNN_DATA_DOUBLE,0),T(48,4,dy,CUDNN_DATA_DOUBLE,1),s,p);
  OP("int8",T(49,4,dc,CUDNN_DATA_INT8,0),T(50,4,dy,CUDNN_DATA_INT8,1),s,p);
  OP("fp8",T(51,4,dc,CUDNN_DATA_FP8_E4M3,0),T(52,4,dy,CUDNN_DATA_FP8_E4M3,1),s,p);
  OP("container virtual",T(53,4,dc,H,1),y,s,p);
  OP("seq virtual",c,y,T(54,4,ds,I32,1),p);
  /* set attribute misuse */
  cudnnBackendDescriptor_t op; cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR,&op);
  cudnnBackendDescriptor_t two[2]={c,c}; int64_t i64=3;
  LINE("set container count2",cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,2,two));
  LINE("set container count0",cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,0,two));
  LINE("set container int64",cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,CUDNN_TYPE_INT64,1,&i64));
  LINE("set container null",cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,NULL));
  LINE("set wrong attr (reshape x)",cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_RESHAPE_XDESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&c));
  cudnnBackendDescriptor_t unf; cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR,&unf);
  LINE("set container unfinalized tensor",cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&unf));
  {cudnnBackendDescriptor_t g; cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR,&g); int64_t n=-1;
   LINE("get y before finalize",cudnnBackendGetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&n,&g));}
  cudnnBackendDestroyDescriptor(op);
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR,&op);
  cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&c);
  cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&y);
  cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&s);
  cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&p);
  LINE("finalize",cudnnBackendFinalize(op));
  {cudnnBackendDescriptor_t g; cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR,&g); int64_t n=-1,uid=-1,cnt=-1;
   LINE("get y after",cudnnBackendGetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&n,&g));
   cudnnBackendGetAttribute(g,CUDNN_ATTR_TENSOR_UNIQUE_ID,CUDNN_TYPE_INT64,1,&cnt,&uid); printf("  n=%ld uid=%ld\n",(long)n,(long)uid);}
  LINE("set after finalize",cudnnBackendSetAttribute(op,CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,CUDNN_TYPE_BACKEND_DESCRIPTOR,1,&c));
  LINE("finalize twice",cudnnBackendFinalize(op));
  layouts();
  strides();
  return 0;}

// The browser side of report.html: its stylesheet and script, as strings inlined into the page (no network:
// the file opens from disk). The script reads the embedded JSON (ReportData), fills the counts, draws the
// histogram and a record's track with uPlot, and runs the table (search, sort, pages; a row's click shows its
// track; `#record=ID` in the address opens one). Errors are kept on <body data-errors> for tests and users.

import { POSITION_AXIS_JS } from './position-axis.js';

export const REPORT_CSS = `
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0 2px}h2{font-size:17px;margin:28px 0 8px}
.sub{color:#5b6472;margin:0 0 12px}
.warning{background:#fdecea;border:1px solid #c0392b;color:#7b1d12;border-radius:6px;padding:10px 14px;margin:8px 0 12px;font-weight:600}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:4px 24px;background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:12px 16px}
.facts div{display:flex;gap:8px;min-width:0}.facts dt{color:#5b6472;white-space:nowrap}.facts dd{margin:0;overflow-wrap:anywhere}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px}
.card{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:10px 14px}
.card .n{font-size:22px;font-weight:600}.card .l{color:#5b6472}
.virus{color:#c0392b}.others{color:#2f6db5}.unscored{color:#7d8694}
.panel{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:12px}
.note{color:#5b6472;font-size:13px;margin:6px 0}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}
th,td{padding:4px 8px;border-bottom:1px solid #eceef2;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left;max-width:420px;overflow:hidden;text-overflow:ellipsis}
th{cursor:pointer;user-select:none;background:#eef1f5;position:sticky;top:0}
th.sorted::after{content:" \\25BE"}th.sorted.asc::after{content:" \\25B4"}
tbody tr{cursor:pointer}tbody tr:hover{background:#f3f6fb}tbody tr.sel{background:#e3ecf9}
.controls{display:flex;gap:12px;align-items:center;margin:8px 0}
.controls input{padding:5px 8px;border:1px solid #c9ced6;border-radius:4px;min-width:280px}
button{padding:4px 10px;border:1px solid #c9ced6;background:#fff;border-radius:4px;cursor:pointer}
body.track-only main>:not(.track-part){display:none}
.legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:4px}
`;

export const REPORT_JS = `
(function(){
'use strict';
var errors=[];
function fail(m){errors.push(String(m));document.body.setAttribute('data-errors',errors.join(' | '));}
window.addEventListener('error',function(e){fail(e.message);});
var D=JSON.parse(document.getElementById('report-data').textContent);
// Unpack (packReportData): records from rows, tracks' starts and ends from deltas and widths; null → NaN.
D.records=D.records.map(function(row){var r={};D.columns.forEach(function(k,i){r[k]=row[i]===null?NaN:row[i];});return r;});
Object.keys(D.tracks).forEach(function(id){var p=D.tracks[id],start=[],end=[],at=0;
  for(var i=0;i<p.ds.length;i++){at+=p.ds[i];start.push(at);end.push(at+p.w[i]-1);}
  D.tracks[id]={start:start,end:end,score:p.s,viral:p.v,chunksPerBin:p.n,regions:p.r};});
var C={virus:'#c0392b',others:'#2f6db5',unscored:'#b5bcc7',region:'rgba(192,57,43,0.13)'};
function $(id){return document.getElementById(id);}
function esc(s){return String(s).replace(/[&<>"']/g,function(c){return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c];});}
function fmt(n){return Number.isFinite(n)?n.toLocaleString('en-US'):'';}
function fix(n,d){return Number.isFinite(n)?n.toFixed(d):'';}
// Counts: every element with data-count="path.to.value" shows that number.
document.querySelectorAll('[data-count]').forEach(function(el){
  var v=el.getAttribute('data-count').split('.').reduce(function(o,k){return o==null?undefined:o[k];},D.counts);
  el.textContent=fmt(v==null?0:v);
});
var width=Math.min(1150,document.querySelector('main').clientWidth-26);
// Histogram of the scored chunks' best virus scores.
(function(){
  var n=D.histogram.virus.length,x=[];for(var i=0;i<n;i++)x.push((i+0.5)/n);
  var bars=uPlot.paths.bars({size:[0.9,60]});
  new uPlot({width:width,height:240,scales:{x:{time:false,range:[0,1]}},legend:{show:true},
    axes:[{label:'best virus score of the chunk'},{label:'chunks',size:60}],
    series:[{label:'score'},{label:'viral chunks',stroke:C.virus,fill:'rgba(192,57,43,0.55)',paths:bars,points:{show:false}},
      {label:'non-viral chunks',stroke:C.others,fill:'rgba(47,109,181,0.55)',paths:bars,points:{show:false}}]},
    [x,D.histogram.virus,D.histogram.others],$('histogram'));
})();
${POSITION_AXIS_JS}
// One record's track: best virus score per chunk (or bin of chunks) along the sequence, regions shaded,
// unscored chunks as grey marks on the bottom strip, the call of each chunk as the strip's colour.
var plot=null;
function showTrack(id){
  var t=D.tracks[id],box=$('track'),rec=D.records.find(function(r){return r.id===id;});
  $('track-title').textContent=id;
  if(plot){plot.destroy();plot=null;}
  if(!t){box.innerHTML='<p class="note">No track kept for this record (the report keeps tracks for the table\\'s records while its size budget lasts); its chunks are in chunk_scores.tsv.</p>';return;}
  box.innerHTML='';
  var x=[],y=[];
  for(var i=0;i<t.start.length;i++){x.push((t.start[i]+t.end[i])/2);y.push(t.score[i]<0?null:t.score[i]/1000);}
  var len=rec&&Number.isFinite(rec.length)?rec.length:t.end[t.end.length-1];
  $('track-note').textContent=(rec?fmt(rec.length)+' bp, '+fmt(rec.chunks)+' chunks ('+fmt(rec.scored)+' scored, '+fmt(rec.viral)+' viral), '+fmt(t.regions.length)+' region(s)':'')+
    (t.chunksPerBin>1?'. Downsampled: each point is the best of '+t.chunksPerBin+' consecutive chunks.':'');
  function strip(u){
    var ctx=u.ctx,top=u.bbox.top+u.bbox.height-8*devicePixelRatio,h=8*devicePixelRatio;
    ctx.save();
    t.regions.forEach(function(r){var a=u.valToPos(r[0]-0.5,'x',true),b=u.valToPos(r[1]+0.5,'x',true);ctx.fillStyle=C.region;ctx.fillRect(a,u.bbox.top,Math.max(1,b-a),u.bbox.height);});
    for(var i=0;i<t.start.length;i++){var a=u.valToPos(t.start[i]-0.5,'x',true),b=u.valToPos(t.end[i]+0.5,'x',true);
      ctx.fillStyle=t.score[i]<0?C.unscored:t.viral[i]?C.virus:C.others;ctx.fillRect(a,top,Math.max(1,b-a),h);}
    ctx.restore();
  }
  plot=new uPlot({width:width,height:300,scales:{x:{time:false,range:[1,len]},y:{range:[0,1.02]}},
    axes:[{label:'position',incrs:POSITION_INCRS,space:function(u,i,min,max){return positionAxisSpace(min,max);},
      values:function(u,splits,i,space,step){return splits.map(function(v){return positionLabel(v,step);});}},{label:'best virus score',size:60}],
    series:[{label:'position'},{label:'best virus score',stroke:'#333',width:1,spanGaps:false,points:{show:t.start.length<=400,size:4,fill:'#333'}}],
    hooks:{drawClear:[strip]}},[x,y],box);
}
// The table: search (id), sort (any column), 100 rows a page.
var cols=[['id','Sequence_ID'],['length','length'],['chunks','chunks'],['scored','scored'],['viral','viral'],['fraction','fraction viral'],['regions','regions'],['viralBases','viral bases'],['best','best score'],['call','call']];
var sortKey=null,asc=false,page=0,PAGE=100,rows=D.records.slice(),selected=null;
$('thead').innerHTML='<tr>'+cols.map(function(c){return '<th data-k="'+c[0]+'">'+esc(c[1])+'</th>';}).join('')+'</tr>';
function cell(r,k){var v=r[k];if(k==='id')return esc(v);if(k==='call')return '<span class="'+esc(v)+'">'+esc(v)+'</span>';if(k==='fraction')return fix(v,4);if(k==='best')return fix(v,4);return fmt(v);}
function render(){
  var q=$('search').value.trim().toLowerCase();
  var list=q?rows.filter(function(r){return r.id.toLowerCase().indexOf(q)>=0;}):rows;
  var pages=Math.max(1,Math.ceil(list.length/PAGE));if(page>=pages)page=pages-1;
  $('tbody').innerHTML=list.slice(page*PAGE,(page+1)*PAGE).map(function(r){
    return '<tr data-id="'+esc(r.id)+'"'+(r.id===selected?' class="sel"':'')+'>'+cols.map(function(c){return '<td>'+cell(r,c[0])+'</td>';}).join('')+'</tr>';}).join('');
  $('page').textContent='page '+(page+1)+' of '+pages+' ('+fmt(list.length)+' record'+(list.length===1?'':'s')+')';
  document.querySelectorAll('th').forEach(function(th){th.className=th.getAttribute('data-k')===sortKey?('sorted'+(asc?' asc':'')):'';});
}
$('thead').addEventListener('click',function(e){var k=e.target.getAttribute('data-k');if(!k)return;
  if(sortKey===k)asc=!asc;else{sortKey=k;asc=k==='id';}
  rows.sort(function(a,b){var x=a[k],y=b[k];if(typeof x==='string')return asc?x.localeCompare(y):y.localeCompare(x);
    x=Number.isFinite(x)?x:-Infinity;y=Number.isFinite(y)?y:-Infinity;return asc?x-y:y-x;});page=0;render();});
$('search').addEventListener('input',function(){page=0;render();});
$('prev').addEventListener('click',function(){if(page>0){page--;render();}});
$('next').addEventListener('click',function(){page++;render();});
$('tbody').addEventListener('click',function(e){var tr=e.target.closest('tr');if(!tr)return;selected=tr.getAttribute('data-id');
  history.replaceState(null,'','#record='+encodeURIComponent(selected));render();showTrack(selected);$('track-section').scrollIntoView();});
render();
// #record=ID opens a record's track; #track=ID shows that track alone (for a link or a picture).
var m=/^#(record|track)=(.*)$/.exec(location.hash);if(m&&m[1]==='track')document.body.className='track-only';
m=m&&[m[0],m[2]];
var first=m?decodeURIComponent(m[1]):(D.records.find(function(r){return D.tracks[r.id];})||{}).id;
if(first){selected=first;render();showTrack(first);if(m&&document.body.className!=='track-only')$('track-section').scrollIntoView();}
document.body.setAttribute('data-rendered-ms',String(Math.round(performance.now())));
// First contentful paint, when the browser reports it (benchmarks read it from the DOM).
try{new PerformanceObserver(function(l){l.getEntries().forEach(function(e){if(e.name==='first-contentful-paint')document.body.setAttribute('data-fcp-ms',String(Math.round(e.startTime)));});}).observe({type:'paint',buffered:true});}catch(e){}
})();
`;

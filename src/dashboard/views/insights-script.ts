/**
 * The Insights page's charts, drawn with uPlot (served by us): one per `.chart[data-chart]`, the day's
 * numbers in the legend as the pointer moves, or as the arrow keys move along the days once focused.
 */
export const INSIGHTS_JS = `
(function(){
  if(!window.uPlot)return;
  var palette=["#2f81f7","#3fb950","#f85149","#a371f7","#d29922","#db61a2","#39c5cf","#8b949e"];
  var css=getComputedStyle(document.documentElement);
  var ink=css.getPropertyValue("--fgColor-muted").trim()||"#59636e",grid=css.getPropertyValue("--borderColor-muted").trim()||"#d1d9e0";
  var short=function(v){var a=Math.abs(v);return a>=1e6?+(v/1e6).toFixed(1)+"M":a>=1e3?+(v/1e3).toFixed(1)+"k":String(+v.toFixed(4));};
  var day=function(ts){return ts==null?"--":new Date(ts*1000).toISOString().slice(0,10);};
  document.querySelectorAll(".chart[data-chart]").forEach(function(el){
    var d=JSON.parse(el.getAttribute("data-chart"));
    var xs=d.days.map(function(s){return Date.parse(s+"T00:00:00Z")/1000;});
    var series=[{label:"day",value:function(u,v){return day(v);}}].concat(d.series.map(function(s,i){
      return {label:s.name,stroke:palette[i%palette.length],width:2,points:{show:true,size:4},spanGaps:false,value:function(u,v){return v==null?"–":v.toLocaleString("en-US")+" "+d.unit;}};
    }));
    var axis={stroke:ink,grid:{stroke:grid,width:1},ticks:{stroke:grid,width:1}};
    var opts={width:Math.max(200,el.clientWidth),height:220,series:series,
      scales:{x:{time:true}},tzDate:function(ts){return uPlot.tzDate(new Date(ts*1000),"Etc/UTC");},
      axes:[Object.assign({},axis,{values:function(u,vals){return vals.map(function(v){return day(v).slice(5);});}}),Object.assign({},axis,{size:48,values:function(u,vals){return vals.map(short);}})],
      legend:{live:true},cursor:{drag:{x:false,y:false}}};
    var u=new uPlot(opts,[xs].concat(d.series.map(function(s){return s.values;})),el);
    var idx=xs.length-1;
    var show=function(){var y=0;for(var i=1;i<u.data.length;i++){if(u.data[i][idx]!=null){y=u.valToPos(u.data[i][idx],"y");break;}}u.setCursor({left:u.valToPos(xs[idx],"x"),top:y});};
    el.addEventListener("focus",show);
    el.addEventListener("keydown",function(e){
      if(e.key==="ArrowLeft"||e.key==="ArrowRight"){idx=Math.min(xs.length-1,Math.max(0,idx+(e.key==="ArrowLeft"?-1:1)));show();e.preventDefault();}
    });
    window.addEventListener("resize",function(){u.setSize({width:Math.max(200,el.clientWidth),height:220});});
  });
})();
`;

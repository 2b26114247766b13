// The track's x axis (position along the sequence), as page script: uPlot's default labels ("1,000,000") are wider
// than its default tick spacing (50 px), so on a genome of megabases they ran into each other. Here the labels are in
// bp, kb or Mb by the tick step, and the spacing is never less than the widest label the axis can show.
// Kept as a string so that the page runs exactly what the tests run (test/position-axis.test.ts evaluates it).

/** Approximate width of one character of uPlot's axis font (12px sans-serif; digits are ~7 px). */
export const AXIS_CHAR_PX = 7;

export const POSITION_AXIS_JS = `
// Tick steps in bp: 1, 2, 5 × 10^k (and 2.5 × 10^k from 25 up), so that every label is exact in its unit.
var POSITION_INCRS=[];
for(var k=0;k<=10;k++)[1,2,2.5,5].forEach(function(m){var s=m*Math.pow(10,k);if(s>=1&&Number.isInteger(s))POSITION_INCRS.push(s);});
// A position labelled in the unit of the step: Mb from 100 kb steps, kb from 1 kb steps, else bp; with the
// decimals the step needs (a 250 kb step: 1.25 Mb), so neighbouring labels differ.
function positionLabel(bp,step){
  var unit=step>=1e5?1e6:step>=1e3?1e3:1,name=unit===1e6?' Mb':unit===1e3?' kb':'';
  var d=0;while(d<3&&Math.abs(Math.round(step/unit*Math.pow(10,d))-step/unit*Math.pow(10,d))>1e-9)d++;
  return (bp/unit).toLocaleString('en-US',{minimumFractionDigits:d,maximumFractionDigits:d})+name;
}
// Pixels between ticks: the widest label any step could give on [min, max], plus a gap. Labels of a step all have
// the same decimals, so the one of the largest position is the widest.
function positionAxisSpace(min,max){
  var top=Math.max(Math.abs(min),Math.abs(max)),chars=0;
  POSITION_INCRS.forEach(function(step){chars=Math.max(chars,positionLabel(Math.ceil(top/step)*step,step).length);});
  return chars*${AXIS_CHAR_PX}+16;
}
`;

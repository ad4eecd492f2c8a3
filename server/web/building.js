// What a build beside the server is still making (ListVariants' `building`), as one line for the pages.
export function duration(s) {
  s = Math.max(0, Math.round(s));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60), r = s % 60;
  return r ? `${m} min ${r} s` : `${m} min`;
}

// "Still being built: jotto-en_US80-5-ganzfried (about 40%, about 1 min left), dudo-5dice-default
// (waiting, about 9 min left); each comes online here when ready."  ("" when nothing is.)
export function buildingText(building) {
  if (!building.length) return "";
  const parts = building.map((b) => {
    const bits = [];
    if (b.state === "building") bits.push(b.fraction >= 0 ? `about ${Math.round(100 * b.fraction)}%` : "no estimate yet");
    else bits.push("waiting");
    if (b.etaSeconds >= 0) bits.push(`about ${duration(b.etaSeconds)} left`);
    return `${b.variant} (${bits.join(", ")})`;
  });
  return `Still being built: ${parts.join(", ")}; each comes online here when ready.`;
}

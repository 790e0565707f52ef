/**
 * The run page's live view (the only script): Server-Sent Events append the server-rendered, escaped
 * message fragments, update the status, and show the PR link when the run ends.
 */
import { STATUS_VARIANT } from "./badges.js";

export const LIVE_JS = `
(function(){
  var variant=${JSON.stringify(STATUS_VARIANT)};
  var root=document.getElementById("live");if(!root||!window.EventSource)return;
  var list=document.getElementById("conversation"),status=document.getElementById("run-status"),todos=document.getElementById("todos");
  var es=new EventSource(root.getAttribute("data-events"));
  es.addEventListener("message",function(e){var d=JSON.parse(e.data);list.insertAdjacentHTML("beforeend",d.html);});
  es.addEventListener("usage",function(e){var u=document.getElementById("run-usage");if(u)u.textContent=JSON.parse(e.data).text;});
  es.addEventListener("todos",function(e){todos.innerHTML=JSON.parse(e.data).html;});
  es.addEventListener("status",function(e){var d=JSON.parse(e.data);status.textContent=d.status;status.className="Label "+(variant[d.status]||"Label--secondary");});
  es.addEventListener("done",function(e){var d=JSON.parse(e.data);es.close();document.getElementById("run-end").innerHTML=d.html;var c=document.getElementById("controls");if(c)c.hidden=true;});
})();
`;

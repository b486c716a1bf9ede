extension Templates {
    static let friends = #"""
        {{<layout}}{{$content}}
        {{>more_tabs}}
        <section class="card">
        <h2>Friends</h2>
        <p>A friend sees a daily summary of yours only once you share it: energy and macros as percentages of your goals, days logged, streaks and badges. Never what you ate, a photo or the coeliac diary.</p>
        <form method="post" action="/friends/share" class="inline"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="share" value="{{^shareWithAll}}1{{/shareWithAll}}{{#shareWithAll}}0{{/shareWithAll}}">
        <button type="submit">{{#shareWithAll}}Stop sharing with all friends{{/shareWithAll}}{{^shareWithAll}}Share with all friends{{/shareWithAll}}</button></form>
        <form method="post" action="/friends/compete" class="inline"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="on" value="{{^competes}}1{{/competes}}{{#competes}}0{{/competes}}">
        <button type="submit">{{#competes}}Leave the weekly board{{/competes}}{{^competes}}Join the weekly board{{/competes}}</button></form>
        {{#competes}}<p><a href="/friends/board">See this week's board</a></p>{{/competes}}
        <p><a href="/friends/progress">What your friends see of you</a></p>
        {{#empty(friends)}}<p>No friends yet.</p>{{/empty(friends)}}
        <ul class="rows">
        {{#friends}}
        <li><span>{{name}} <small>since {{since}} · you {{#sharing}}share{{/sharing}}{{^sharing}}do not share{{/sharing}} · {{#sharesWithYou}}shares with you{{/sharesWithYou}}{{^sharesWithYou}}does not share{{/sharesWithYou}}{{#competes}} · on the board{{/competes}}</small></span>
        {{#sharesWithYou}}<a href="/friends/progress?user={{user}}">Progress</a>{{/sharesWithYou}}
        <form method="post" action="/friends/share"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="user" value="{{user}}"><input type="hidden" name="share" value="{{^sharing}}1{{/sharing}}{{#sharing}}0{{/sharing}}"><button type="submit" class="link">{{#sharing}}Stop sharing{{/sharing}}{{^sharing}}Share with {{name}}{{/sharing}}</button></form>
        <form method="post" action="/friends/end"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="user" value="{{user}}"><button type="submit" class="link">End</button></form>
        </li>
        {{/friends}}
        </ul>
        </section>
        {{^empty(received)}}<section class="card"><h2>Requests for you</h2><ul class="rows">
        {{#received}}<li><span>{{name}} <small>{{email}} · {{sent}}</small></span>
        <form method="post" action="/friends/answer"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><input type="hidden" name="accept" value="1"><button type="submit">Accept</button></form>
        <form method="post" action="/friends/answer"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><input type="hidden" name="accept" value="0"><button type="submit" class="link">Decline</button></form>
        </li>{{/received}}</ul></section>{{/empty(received)}}
        <section class="card">
        <h2>Ask someone</h2>
        <form method="post" action="/friends/request" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="friend-email">Their email</label><input id="friend-email" name="email" type="email" required maxlength="254" autocomplete="off">
        <button type="submit">Send a request</button>
        </form>
        {{^empty(sent)}}<ul class="rows">{{#sent}}<li><span>{{email}} <small>asked {{sent}}</small></span>
        <form method="post" action="/friends/withdraw"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><button type="submit" class="link">Withdraw</button></form></li>{{/sent}}</ul>{{/empty(sent)}}
        </section>
        {{/content}}{{/layout}}
        """#

    static let friendProgress = #"""
        {{<layout}}{{$content}}
        {{>more_tabs}}
        <section class="card">
        <h2>{{who}} on {{date}}</h2>
        <p>{{#logged}}Logged.{{/logged}}{{^logged}}Nothing logged yet.{{/logged}}</p>
        <ul class="rows">{{#percent}}<li><span>{{label}}</span><span>{{value}} % of the goal</span></li>{{/percent}}</ul>
        <p>Days logged: {{daysLogged7}} of the last 7, {{daysLogged30}} of the last 30.</p>
        <p>Streak: {{streak}} days (best {{bestStreak}}).</p>
        {{^empty(badges)}}<p>Badges: {{#badges}}<span class="badge">{{.}}</span> {{/badges}}</p>{{/empty(badges)}}
        <p><a href="/friends">Back to friends</a></p>
        </section>
        {{/content}}{{/layout}}
        """#

    static let friendsBoard = #"""
        {{<layout}}{{$content}}
        {{>more_tabs}}
        <section class="card">
        <h2>Week of {{weekStart}} to {{weekEnd}}</h2>
        <p>Ranked by days within ±10 % of the energy goal, then days logged, then streak.</p>
        <table><thead><tr><th scope="col">#</th><th scope="col">Who</th><th scope="col">Within goal</th><th scope="col">Logged</th><th scope="col">Streak</th></tr></thead>
        <tbody>{{#rows}}<tr{{#you}} aria-current="true"{{/you}}><td>{{rank}}</td><td>{{name}}</td><td>{{within}}</td><td>{{logged}}</td><td>{{streak}}</td></tr>{{/rows}}</tbody></table>
        <p><a href="/friends/board?week={{previous}}">Previous week</a> · <a href="/friends/board?week={{next}}">Next week</a> · <a href="/friends">Friends</a></p>
        </section>
        {{/content}}{{/layout}}
        """#
}

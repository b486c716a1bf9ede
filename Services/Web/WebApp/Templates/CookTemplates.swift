extension Templates {
    static let cook = #"""
        {{<layout}}{{$content}}
        <div class="cook" id="cook" data-step="{{number}}" data-steps="{{count}}">
        {{#overview}}
        <p class="cook-lead">For {{people}} people. Have these ready:</p>
        <ul class="cook-ingredients">{{#ingredients}}<li>{{amount}} {{name}}</li>{{/ingredients}}</ul>
        {{/overview}}
        {{#step}}
        <p class="cook-count">Step {{number}} of {{count}}</p>
        <p class="cook-step">{{description}}</p>
        {{^empty(ingredients)}}<ul class="cook-ingredients">{{#ingredients}}<li>{{amount}} {{name}}</li>{{/ingredients}}</ul>{{/empty(ingredients)}}
        {{#minutes}}
        <p class="timer" data-seconds="{{seconds}}"><span class="timer-text" role="timer" aria-live="off">{{minutes}}:00</span>
        <button type="button" class="timer-start" hidden>Start a {{minutes}} minute timer</button></p>
        {{/minutes}}
        {{/step}}
        {{#finished}}
        <p class="cook-step">All done. Enjoy your meal!</p>
        {{#slot}}
        <form method="post" action="/week/cooked">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}"><input type="hidden" name="slot" value="{{slot}}">
        <button type="submit" class="primary big">Cooked: log it in my diary</button>
        </form>
        {{/slot}}
        {{/finished}}
        <nav class="cook-nav" aria-label="Steps">
        {{#previous}}<a class="button big" rel="prev" href="{{previous}}">← Previous</a>{{/previous}}
        {{#next}}<a class="button big primary" rel="next" href="{{next}}">Next →</a>{{/next}}
        </nav>
        <p><a href="/recipes/{{recipe}}">Back to the recipe</a></p>
        </div>
        {{/content}}{{/layout}}
        """#
}

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AdaptController</name>
    <message>
        <source>loading the embedder</source>
        <translation>正在加载嵌入模型</translation>
    </message>
    <message>
        <source>features: {run}</source>
        <translation>特征：{run}</translation>
    </message>
    <message>
        <source>cross-validating {done}/{total}</source>
        <translation>交叉验证 {done}/{total}</translation>
    </message>
    <message>
        <source>Adapt to my &amp;labels…</source>
        <translation>按我的标注适配(&amp;L)…</translation>
    </message>
    <message>
        <source>Ranker &amp;versions…</source>
        <translation>排序器版本(&amp;V)…</translation>
    </message>
    <message>
        <source>Pick an adapted ranker of this workspace, or the shipped weights</source>
        <translation>选择此工作区中已适配的排序器，或内置权重</translation>
    </message>
    <message>
        <source>Revert to &amp;shipped weights</source>
        <translation>恢复内置权重(&amp;S)</translation>
    </message>
    <message>
        <source>Analyses use the shipped ranker weights again (adapted versions are kept)</source>
        <translation>分析重新使用内置排序器权重（已适配的版本会保留）</translation>
    </message>
    <message>
        <source>Mark the decisive step (D) of 1 more failed run to adapt the ranker ({have} of {need} labelled)</source>
        <translation>再为 1 个失败运行标记决定性步骤（D）即可适配排序器（已标注 {have}/{need}）</translation>
    </message>
    <message>
        <source>Mark the decisive step (D) of {more} more failed runs to adapt the ranker ({have} of {need} labelled)</source>
        <translation>再为 {more} 个失败运行标记决定性步骤（D）即可适配排序器（已标注 {have}/{need}）</translation>
    </message>
    <message>
        <source>Fit the decisive-step ranker to your {n} labelled failed runs, shrunk towards the shipped weights</source>
        <translation>用你标注的 {n} 个失败运行拟合决定性步骤排序器，并向内置权重收缩</translation>
    </message>
    <message>
        <source>Adapt to my labels ({have}/{need})</source>
        <translation>按我的标注适配（{have}/{need}）</translation>
    </message>
    <message>
        <source>Adapt to my labels</source>
        <translation>按我的标注适配</translation>
    </message>
    <message>
        <source>Ranker: shipped</source>
        <translation>排序器：内置</translation>
    </message>
    <message>
        <source>Ranker: adapted #{id}</source>
        <translation>排序器：已适配 #{id}</translation>
    </message>
    <message>
        <source>shipped weights</source>
        <translation>内置权重</translation>
    </message>
    <message>
        <source>adapted #{id} ({n} labels)</source>
        <translation>已适配 #{id}（{n} 个标注）</translation>
    </message>
    <message>
        <source>Adapted ranker #{id} is damaged; the shipped weights are used: {err}</source>
        <translation>已适配的排序器 #{id} 已损坏，改用内置权重：{err}</translation>
    </message>
    <message>
        <source>Open a workspace first (File ▸ Open workspace).</source>
        <translation>请先打开工作区（文件 ▸ 打开工作区）。</translation>
    </message>
    <message>
        <source>The ranker is already being adapted.</source>
        <translation>排序器正在适配中。</translation>
    </message>
    <message>
        <source>Adapting the ranker failed: {msg}</source>
        <translation>适配排序器失败：{msg}</translation>
    </message>
    <message>
        <source>Adapting the ranker to {n} labels…</source>
        <translation>正在按 {n} 个标注适配排序器…</translation>
    </message>
    <message>
        <source>Adapting was cancelled; nothing was stored.</source>
        <translation>适配已取消，未保存任何内容。</translation>
    </message>
    <message>
        <source>Not saved: no workspace is open (File ▸ Open workspace).</source>
        <translation>未保存：没有打开的工作区（文件 ▸ 打开工作区）。</translation>
    </message>
    <message>
        <source>Not saved: {err}</source>
        <translation>未保存：{err}</translation>
    </message>
    <message>
        <source>{n} labels could not be used.</source>
        <translation>有 {n} 个标注无法使用。</translation>
    </message>
    <message>
        <source>Saved ranker version #{id} ({name}).</source>
        <translation>已保存排序器版本 #{id}（{name}）。</translation>
    </message>
    <message>
        <source>Analyses use the shipped weights again; the adapted versions are kept.</source>
        <translation>分析重新使用内置权重；已适配的版本会保留。</translation>
    </message>
    <message>
        <source>Re-analyse</source>
        <translation>重新分析</translation>
    </message>
    <message>
        <source>Analyses use adapted ranker #{id}.</source>
        <translation>分析使用已适配的排序器 #{id}。</translation>
    </message>
</context>
<context>
    <name>AdaptResultDialog</name>
    <message>
        <source>Ranker adapted to your labels</source>
        <translation>已按你的标注适配排序器</translation>
    </message>
    <message>
        <source>Version #{id}: fitted on {n} labelled failed runs</source>
        <translation>版本 #{id}：基于 {n} 个已标注的失败运行拟合</translation>
    </message>
    <message>
        <source>Shrinkage towards the shipped weights: λ = {strength} (chosen by cross-validation on your labels; ties keep the stronger shrinkage; ∞ keeps the shipped weights).</source>
        <translation>向内置权重的收缩强度：λ = {strength}（由在你的标注上的交叉验证选出；得分相同时取更强的收缩；∞ 表示保持内置权重）。</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Step@1 on your labels</source>
        <translation>在你的标注上的 Step@1</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Shipped weights</source>
        <translation>内置权重</translation>
    </message>
    <message>
        <source>Adapted weights</source>
        <translation>适配后的权重</translation>
    </message>
    <message>
        <source>Leave-one-out: each labelled run is predicted by weights fitted without it, so both figures are held-out. With few labels they are rough: one run is {share}.</source>
        <translation>留一法：每个已标注的运行都由不含它拟合出的权重来预测，因此两个数字都是留出结果。标注较少时数字很粗略：一个运行就占 {share}。</translation>
    </message>
    <message>
        <source>Adapting helped on your labels. Analyses now use version #{id}.</source>
        <translation>适配在你的标注上有提升。分析现在使用版本 #{id}。</translation>
    </message>
    <message>
        <source>Adapting did not help on your labels. Analyses use version #{id}; you can revert to the shipped weights.</source>
        <translation>适配在你的标注上没有提升。分析使用版本 #{id}；你可以恢复内置权重。</translation>
    </message>
    <message>
        <source>Re-analyse runs</source>
        <translation>重新分析运行</translation>
    </message>
    <message>
        <source>Analyse the runs again with the adapted weights</source>
        <translation>用适配后的权重重新分析这些运行</translation>
    </message>
    <message>
        <source>Revert to shipped weights</source>
        <translation>恢复内置权重</translation>
    </message>
</context>
<context>
    <name>AnalysisPersistence</name>
    <message>
        <source>Analysis results cannot be kept in the workspace: {err}</source>
        <translation>无法在工作区中保存分析结果：{err}</translation>
    </message>
</context>
<context>
    <name>AnnotationEditor</name>
    <message>
        <source>Annotate the selected step or the whole run</source>
        <translation>标注所选步骤或整个运行</translation>
    </message>
    <message>
        <source>This step</source>
        <translation>此步骤</translation>
    </message>
    <message>
        <source>Whole run</source>
        <translation>整个运行</translation>
    </message>
    <message>
        <source>The analyst's failure category (keys 1-9, 0)</source>
        <translation>分析员标注的失败类别（按键 1–9、0）</translation>
    </message>
    <message>
        <source>— no category —</source>
        <translation>— 无类别 —</translation>
    </message>
    <message>
        <source>Decisive (D)</source>
        <translation>决定性 (D)</translation>
    </message>
    <message>
        <source>Make this step the run's decisive step</source>
        <translation>将此步骤设为该运行的决定性步骤</translation>
    </message>
    <message>
        <source>Accept (A)</source>
        <translation>接受 (A)</translation>
    </message>
    <message>
        <source>Accept the judge's suggestion here</source>
        <translation>接受此处评审模型的建议</translation>
    </message>
    <message>
        <source>Reject (R)</source>
        <translation>拒绝 (R)</translation>
    </message>
    <message>
        <source>Reject the judge's suggestion here</source>
        <translation>拒绝此处评审模型的建议</translation>
    </message>
    <message>
        <source>Add a custom tag, Enter</source>
        <translation>添加自定义标签，按 Enter</translation>
    </message>
    <message>
        <source>Free-text note (saved automatically)</source>
        <translation>自由文本备注（自动保存）</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Annotation</source>
        <translation>标注</translation>
    </message>
    <message>
        <source>Select a run or a step to annotate it.</source>
        <translation>选择一个运行或步骤以进行标注。</translation>
    </message>
    <message>
        <source>step {n}</source>
        <translation>步骤 {n}</translation>
    </message>
    <message>
        <source>whole run</source>
        <translation>整个运行</translation>
    </message>
    <message>
        <source>No workspace is open.</source>
        <translation>没有打开的工作区。</translation>
    </message>
    <message>
        <source>analyst's decisive step</source>
        <translation>分析员指定的决定性步骤</translation>
    </message>
    <message>
        <source>by {author} at {time}</source>
        <translation>{author} 于 {time}</translation>
    </message>
    <message>
        <source>not annotated yet</source>
        <translation>尚未标注</translation>
    </message>
    <message>
        <source>Other analysts:</source>
        <translation>其他分析员：</translation>
    </message>
    <message>
        <source>judge: {category} at step {step}</source>
        <translation>评审：步骤 {step} 为{category}</translation>
    </message>
    <message>
        <source>(decisive)</source>
        <translation>（决定性）</translation>
    </message>
    <message>
        <source>judge: {categories}</source>
        <translation>评审：{categories}</translation>
    </message>
    <message>
        <source>Remove the tag “{tag}”</source>
        <translation>移除标签“{tag}”</translation>
    </message>
    <message>
        <source>saved</source>
        <translation>已保存</translation>
    </message>
    <message>
        <source>editing…</source>
        <translation>编辑中…</translation>
    </message>
    <message>
        <source>not saved</source>
        <translation>未保存</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>Something went wrong: {err}. Your data is safe; you can copy the details for a bug report.</source>
        <translation>出现错误：{err}。您的数据是安全的；可以复制详情用于错误报告。</translation>
    </message>
</context>
<context>
    <name>ComparePanel</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Framework</source>
        <translation>框架</translation>
    </message>
    <message>
        <source>Task family</source>
        <translation>任务类别</translation>
    </message>
    <message>
        <source>What to compare</source>
        <translation>比较的对象</translation>
    </message>
    <message>
        <source>Compare by</source>
        <translation>比较维度</translation>
    </message>
    <message>
        <source>Pass rate with 95% CI</source>
        <translation>通过率（95% 置信区间）</translation>
    </message>
    <message>
        <source>Decisive failure categories (share of failed runs)</source>
        <translation>决定性失败类别（占失败运行的比例）</translation>
    </message>
    <message>
        <source>Decisive step position (▼ group medians)</source>
        <translation>决定性步骤位置（▼ 各组中位数）</translation>
    </message>
    <message>
        <source>Horizon: success vs run length</source>
        <translation>时域：成功率与运行长度</translation>
    </message>
    <message>
        <source>Self-conditioning</source>
        <translation>自我条件化</translation>
    </message>
    <message>
        <source>Open traces to compare models.</source>
        <translation>打开轨迹后即可比较模型。</translation>
    </message>
    <message>
        <source>Model metrics are not available in this build ({err}).</source>
        <translation>此版本中没有模型指标（{err}）。</translation>
    </message>
    <message>
        <source>{runs} runs in {groups} groups, {analysed} analysed (the runs the current filter shows).</source>
        <translation>{groups} 个组中共 {runs} 个运行，已分析 {analysed} 个（当前筛选显示的运行）。</translation>
    </message>
    <message>
        <source>Analyse the runs to see failure categories, decisive steps and horizons.</source>
        <translation>分析这些运行后即可看到失败类别、决定性步骤和时域。</translation>
    </message>
    <message>
        <source>The first groups of the table are drawn; every group stays in the table</source>
        <translation>图中绘制表格的前几个分组；所有分组都保留在表格中</translation>
    </message>
    <message>
        <source>Groups with fewer runs are marked “too few runs” and never ranked above larger groups (saved in the settings)</source>
        <translation>运行数更少的分组标记为“运行太少”，其排名绝不会高于更大的分组（保存在设置中）</translation>
    </message>
    <message>
        <source>Merge models…</source>
        <translation>合并模型…</translation>
    </message>
    <message>
        <source>Count the selected models as one (saved in the workspace's alias table)</source>
        <translation>把所选模型算作一个（保存在工作区的别名表中）</translation>
    </message>
    <message>
        <source>Split model</source>
        <translation>拆分模型</translation>
    </message>
    <message>
        <source>Count every name of the selected model on its own again</source>
        <translation>把所选模型的每个名称重新单独计算</translation>
    </message>
    <message>
        <source>Groups drawn</source>
        <translation>绘制的分组数</translation>
    </message>
    <message>
        <source>Minimum n</source>
        <translation>最小 n</translation>
    </message>
    <message>
        <source>(unknown)</source>
        <translation>（未知）</translation>
    </message>
    <message>
        <source>Groups with fewer than {min} runs ({n} here) are marked “too few runs” and ranked after the others.</source>
        <translation>运行数少于 {min} 的分组（此处有 {n} 个）标记为“运行太少”，排在其他分组之后。</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Successes</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>Failures</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Each task with its runs, successes and models; double-click a task that both failed and succeeded to contrast its first failed run with a success</source>
        <translation>每个任务及其运行数、成功数和模型；双击一个既有失败又有成功的任务，可将其第一个失败运行与成功运行对照</translation>
    </message>
    <message>
        <source>Show only this task's runs</source>
        <translation>只显示该任务的运行</translation>
    </message>
    <message>
        <source>Contrast its first failed run with a success</source>
        <translation>将其第一个失败运行与成功运行对照</translation>
    </message>
    <message>
        <source>{n} runs record no {what}: they are listed apart as “(unknown)” in the last row and never ranked.</source>
        <translation>{n} 个运行没有记录{what}：它们作为“（未知）”单独列在最后一行，从不参与排名。</translation>
    </message>
    <message>
        <source>The plots draw the first {n} groups; {hidden} more are in the table.</source>
        <translation>图中绘制前 {n} 个分组；另有 {hidden} 个在表格中。</translation>
    </message>
    <message>
        <source>The paired view compares models: compare by Model.</source>
        <translation>配对视图比较的是模型：请按“模型”比较。</translation>
    </message>
    <message>
        <source>“(unknown)” holds the runs with no recorded model: it is not compared.</source>
        <translation>“（未知）”包含没有记录模型的运行：不参与比较。</translation>
    </message>
    <message>
        <source>Merge models</source>
        <translation>合并模型</translation>
    </message>
    <message>
        <source>Count these models as one, named:</source>
        <translation>把这些模型算作一个，名称为：</translation>
    </message>
    <message>
        <source>Open a workspace to keep model aliases.</source>
        <translation>请打开一个工作区以保存模型别名。</translation>
    </message>
    <message>
        <source>Cannot save the alias: {err}</source>
        <translation>无法保存别名：{err}</translation>
    </message>
    <message>
        <source>Grouped names</source>
        <translation>归并的名称</translation>
    </message>
    <message>
        <source>n (runs)</source>
        <translation>n（运行数）</translation>
    </message>
    <message>
        <source>Sample</source>
        <translation>样本</translation>
    </message>
    <message>
        <source>Pass rate</source>
        <translation>通过率</translation>
    </message>
    <message>
        <source>95% CI</source>
        <translation>95% 置信区间</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Attributed</source>
        <translation>已归因</translation>
    </message>
    <message>
        <source>Top failure category</source>
        <translation>最主要的失败类别</translation>
    </message>
    <message>
        <source>Decisive step (median position)</source>
        <translation>决定性步骤（中位位置）</translation>
    </message>
    <message>
        <source>Per-step reliability p̂</source>
        <translation>单步可靠性 p̂</translation>
    </message>
    <message>
        <source>H50 (steps)</source>
        <translation>H50（步）</translation>
    </message>
    <message>
        <source>H80 (steps)</source>
        <translation>H80（步）</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>标签来源</translation>
    </message>
    <message>
        <source>Names in the traces: {names}</source>
        <translation>轨迹中的名称：{names}</translation>
    </message>
    <message>
        <source>{k} of these outcomes are estimates (no outcome recorded, none set by the analyst)</source>
        <translation>其中 {k} 个结果是估计值（未记录结果，分析员也未设定）</translation>
    </message>
    <message>
        <source>Fewer than {n} runs: too uncertain to rank</source>
        <translation>少于 {n} 个运行：不确定性太大，不参与排名</translation>
    </message>
    <message>
        <source>The files of these runs record no {what}. “(unknown)” is not a group: it is listed apart, never ranked, drawn or paired.</source>
        <translation>这些运行的文件没有记录{what}。“（未知）”不是一个分组：它单独列出，从不参与排名、绘图或配对比较。</translation>
    </message>
    <message>
        <source>not ranked</source>
        <translation>不参与排名</translation>
    </message>
    <message>
        <source>alias</source>
        <translation>别名</translation>
    </message>
    <message>
        <source>automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Merged by the alias table of the workspace. Select the row and press “Split model” to count each name on its own.</source>
        <translation>由工作区的别名表合并。选中该行并点击“拆分模型”，即可分别统计每个名称。</translation>
    </message>
    <message>
        <source>Folded automatically: provider prefixes, date stamps and “-latest” are not part of a model's name. Select the row and press “Split model” to count each name on its own (kept in the workspace).</source>
        <translation>已自动归并：服务商前缀、日期戳和“-latest”不属于模型名称。选中该行并点击“拆分模型”，即可分别统计每个名称（保存在工作区中）。</translation>
    </message>
    <message>
        <source>too few runs</source>
        <translation>运行太少</translation>
    </message>
    <message>
        <source>ranker</source>
        <translation>排序器</translation>
    </message>
    <message>
        <source>judge</source>
        <translation>评审模型</translation>
    </message>
    <message>
        <source>analyst</source>
        <translation>分析员</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>混合</translation>
    </message>
    <message>
        <source>No categorised failures yet</source>
        <translation>暂无已分类的失败</translation>
    </message>
    <message>
        <source>no failures</source>
        <translation>无失败</translation>
    </message>
    <message>
        <source>No decisive steps yet</source>
        <translation>暂无决定性步骤</translation>
    </message>
    <message>
        <source>relative position (0 first step, 1 last)</source>
        <translation>相对位置（0 为第一步，1 为最后一步）</translation>
    </message>
    <message>
        <source>failed runs</source>
        <translation>失败运行数</translation>
    </message>
    <message>
        <source>Needs analysed runs (decisive steps)</source>
        <translation>需要已分析的运行（决定性步骤）</translation>
    </message>
    <message>
        <source>{n} longer runs (up to {max} steps) ▶</source>
        <translation>{n} 个更长的运行（最长 {max} 步）▶</translation>
    </message>
    <message>
        <source>run length (steps); ● H80, H50</source>
        <translation>运行长度（步）；● H80、H50</translation>
    </message>
    <message>
        <source>No steps</source>
        <translation>没有步骤</translation>
    </message>
    <message>
        <source>all runs (95% CI)</source>
        <translation>所有运行（95% 置信区间）</translation>
    </message>
    <message>
        <source>k prior errors; thin lines: groups</source>
        <translation>先前错误数 k；细线：各组</translation>
    </message>
</context>
<context>
    <name>ContrastView</name>
    <message>
        <source>Successes of the same task, nearest (lowest alignment cost) first</source>
        <translation>同一任务的成功运行，最接近的（对齐代价最低）排在最前</translation>
    </message>
    <message>
        <source>◀ Previous difference</source>
        <translation>◀ 上一处差异</translation>
    </message>
    <message>
        <source>Previous difference (Shift+D in the table)</source>
        <translation>上一处差异（在表格中按 Shift+D）</translation>
    </message>
    <message>
        <source>Next difference ▶</source>
        <translation>下一处差异 ▶</translation>
    </message>
    <message>
        <source>Next difference (D in the table)</source>
        <translation>下一处差异（在表格中按 D）</translation>
    </message>
    <message>
        <source>Go to divergence</source>
        <translation>转到偏离点</translation>
    </message>
    <message>
        <source>The first decision of the failed run with no good match in this success</source>
        <translation>失败运行中第一个在该成功运行里没有良好匹配的决策</translation>
    </message>
    <message>
        <source>Success</source>
        <translation>成功运行</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Failed run</source>
        <translation>失败运行</translation>
    </message>
    <message>
        <source>Aligned row</source>
        <translation>对齐行</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>价值</translation>
    </message>
    <message>
        <source>Select a failed run whose task also succeeded.</source>
        <translation>请选择一个失败运行，且其任务也有成功运行。</translation>
    </message>
    <message>
        <source>This run did not fail: select a failed run to contrast it with a success.</source>
        <translation>该运行没有失败：请选择一个失败运行，将其与成功运行对照。</translation>
    </message>
    <message>
        <source>No other run of this task succeeded, so there is nothing to contrast it with.</source>
        <translation>该任务没有其他成功的运行，因此无法对照。</translation>
    </message>
    <message>
        <source>Failed run &lt;b&gt;{run}&lt;/b&gt; · task &lt;code&gt;{task}&lt;/code&gt; · {n} successes of the task</source>
        <translation>失败运行 &lt;b&gt;{run}&lt;/b&gt; · 任务 &lt;code&gt;{task}&lt;/code&gt; · 该任务有 {n} 个成功运行</translation>
    </message>
    <message>
        <source>{run} · cost {cost}</source>
        <translation>{run} · 代价 {cost}</translation>
    </message>
    <message>
        <source>(nearest)</source>
        <translation>（最接近）</translation>
    </message>
    <message>
        <source>Every decision of the failed run has a good match in this success.</source>
        <translation>失败运行的每个决策在该成功运行中都有良好匹配。</translation>
    </message>
    <message>
        <source>Diverges at step &lt;b&gt;{step}&lt;/b&gt; of the failed run: {kind}. {n} rows differ.</source>
        <translation>在失败运行的步骤 &lt;b&gt;{step}&lt;/b&gt; 处偏离：{kind}。共有 {n} 行不同。</translation>
    </message>
    <message>
        <source>a different action</source>
        <translation>不同的操作</translation>
    </message>
    <message>
        <source>the same tool with different arguments</source>
        <translation>相同的工具但参数不同</translation>
    </message>
    <message>
        <source>an action of the success is missing</source>
        <translation>缺少成功运行中的一个操作</translation>
    </message>
    <message>
        <source>an extra action</source>
        <translation>多余的操作</translation>
    </message>
    <message>
        <source>Analyse both runs to see their value curves here (they are drawn on the aligned rows).</source>
        <translation>分析这两个运行后，可在此查看它们的价值曲线（按对齐行绘制）。</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export report and tables</source>
        <translation>导出报告和表格</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>CSV</source>
        <translation>CSV</translation>
    </message>
    <message>
        <source>Parquet</source>
        <translation>Parquet</translation>
    </message>
    <message>
        <source>HTML</source>
        <translation>HTML</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation>PDF</translation>
    </message>
    <message>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <source>All {n} loaded runs</source>
        <translation>全部 {n} 个已加载运行</translation>
    </message>
    <message>
        <source>The {n} runs the table shows</source>
        <translation>表格中显示的 {n} 个运行</translation>
    </message>
    <message>
        <source>TrajScope failure report</source>
        <translation>TrajScope 失败分析报告</translation>
    </message>
    <message>
        <source>Tables: traces, steps, findings, models and annotations (same columns as “trajscope analyze”). Your reviewed labels count wherever they exist.</source>
        <translation>表格：轨迹、步骤、发现、模型和标注（列与“trajscope analyze”相同）。只要存在你审阅过的标注，就以其为准。</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Tables</source>
        <translation>表格</translation>
    </message>
    <message>
        <source>Report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Export into folder</source>
        <translation>导出到文件夹</translation>
    </message>
    <message>
        <source>Choose at least one format.</source>
        <translation>请至少选择一种格式。</translation>
    </message>
    <message>
        <source>Choose a folder.</source>
        <translation>请选择一个文件夹。</translation>
    </message>
    <message>
        <source>Exporting to {folder}</source>
        <translation>正在导出到 {folder}</translation>
    </message>
    <message>
        <source>Export failed: {msg}</source>
        <translation>导出失败：{msg}</translation>
    </message>
    <message>
        <source>Wrote {n} files:</source>
        <translation>已写入 {n} 个文件：</translation>
    </message>
    <message>
        <source>Problems:</source>
        <translation>问题：</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
</context>
<context>
    <name>FileDialog</name>
    <message>
        <source>Look in:</source>
        <translation>查找范围：</translation>
    </message>
    <message>
        <source>File name:</source>
        <translation>文件名：</translation>
    </message>
    <message>
        <source>Files of type:</source>
        <translation>文件类型：</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Choose</source>
        <translation>选择(&amp;C)</translation>
    </message>
</context>
<context>
    <name>FilterBar</name>
    <message>
        <source>Search task and step text…</source>
        <translation>搜索任务和步骤文本…</translation>
    </message>
    <message>
        <source>Case-insensitive search in each run's task and in the text of every step (Ctrl+L)</source>
        <translation>在每个运行的任务和所有步骤文本中搜索，不区分大小写（Ctrl+L）</translation>
    </message>
    <message>
        <source>Filters</source>
        <translation>筛选</translation>
    </message>
    <message>
        <source>Show filters by outcome, model, category, tag and confidence</source>
        <translation>按结果、模型、类别、标签和置信度筛选</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>已保存</translation>
    </message>
    <message>
        <source>Save the current filter or apply a saved one</source>
        <translation>保存当前筛选或应用已保存的筛选</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Show every run</source>
        <translation>显示所有运行</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>All outcomes</source>
        <translation>所有结果</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>All models</source>
        <translation>所有模型</translation>
    </message>
    <message>
        <source>Failure category of the decisive step</source>
        <translation>决定性步骤的失败类别</translation>
    </message>
    <message>
        <source>All categories</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <source>Analyst tag</source>
        <translation>分析员标签</translation>
    </message>
    <message>
        <source>All tags</source>
        <translation>所有标签</translation>
    </message>
    <message>
        <source>Lowest confidence shown</source>
        <translation>显示的最低置信度</translation>
    </message>
    <message>
        <source>Highest confidence shown</source>
        <translation>显示的最高置信度</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Save current filter…</source>
        <translation>保存当前筛选…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Save filter</source>
        <translation>保存筛选</translation>
    </message>
    <message>
        <source>Name of this filter:</source>
        <translation>筛选条件名称：</translation>
    </message>
</context>
<context>
    <name>ImportReportDialog</name>
    <message>
        <source>Imported annotations</source>
        <translation>已导入的标注</translation>
    </message>
    <message>
        <source>{added} added, {updated} updated, {same} already present. {conflicts} conflicts, {errors} lines skipped.</source>
        <translation>新增 {added} 条，更新 {updated} 条，{same} 条已存在。{conflicts} 个冲突，跳过 {errors} 行。</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Yours</source>
        <translation>你的</translation>
    </message>
    <message>
        <source>Theirs</source>
        <translation>对方</translation>
    </message>
    <message>
        <source>Their note</source>
        <translation>对方的备注</translation>
    </message>
    <message>
        <source>Resolution</source>
        <translation>处理方式</translation>
    </message>
    <message>
        <source>Conflicts (same step, different category). Both labels are kept; choose whose category you adopt:</source>
        <translation>冲突（同一步骤，类别不同）。两个标注都会保留；请选择采用谁的类别：</translation>
    </message>
    <message>
        <source>Adopt theirs</source>
        <translation>采用对方的</translation>
    </message>
    <message>
        <source>Set your category of the selected conflicts to the other analyst's</source>
        <translation>将所选冲突中你的类别改为另一位分析员的类别</translation>
    </message>
    <message>
        <source>Keep mine</source>
        <translation>保留我的</translation>
    </message>
    <message>
        <source>Show in transcript</source>
        <translation>在记录中显示</translation>
    </message>
    <message>
        <source>Lines that could not be imported:</source>
        <translation>无法导入的行：</translation>
    </message>
    <message>
        <source>both kept</source>
        <translation>两者都保留</translation>
    </message>
    <message>
        <source>adopted theirs</source>
        <translation>已采用对方的</translation>
    </message>
    <message>
        <source>kept mine</source>
        <translation>已保留我的</translation>
    </message>
</context>
<context>
    <name>Insights</name>
    <message>
        <source>Insight</source>
        <translation>洞察</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Share of failed</source>
        <translation>占失败运行比例</translation>
    </message>
    <message>
        <source>Most affected model</source>
        <translation>受影响最大的模型</translation>
    </message>
    <message>
        <source>Typical position</source>
        <translation>典型位置</translation>
    </message>
    <message>
        <source>Not grouped ({n})</source>
        <translation>未分组（{n}）</translation>
    </message>
    <message>
        <source>Runs that joined no group of two or more</source>
        <translation>未归入任何两个及以上运行之组的运行</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Decisive step</source>
        <translation>决定性步骤</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
</context>
<context>
    <name>InsightsPanel</name>
    <message>
        <source>Find insights</source>
        <translation>查找洞察</translation>
    </message>
    <message>
        <source>Group the decisive failures of all analysed runs into insights</source>
        <translation>将所有已分析运行的决定性失败归组为洞察</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>What to change…</source>
        <translation>应改进之处…</translation>
    </message>
    <message>
        <source>Edit or accept the suggested change that would prevent this failure</source>
        <translation>编辑或接受可防止此类失败的建议改动</translation>
    </message>
    <message>
        <source>Split</source>
        <translation>拆分</translation>
    </message>
    <message>
        <source>Re-cluster the selected insight's runs into two insights</source>
        <translation>将所选洞察的运行重新聚类为两个洞察</translation>
    </message>
    <message>
        <source>Merge</source>
        <translation>合并</translation>
    </message>
    <message>
        <source>Merge the two selected insights into one</source>
        <translation>将所选的两个洞察合并为一个</translation>
    </message>
    <message>
        <source>Tag all runs as</source>
        <translation>将所有运行标注为</translation>
    </message>
    <message>
        <source>Tag the decisive step of every run of the insight (keys 1-9, 0)</source>
        <translation>标注该洞察中每个运行的决定性步骤（按键 1–9、0）</translation>
    </message>
    <message>
        <source>Accept categories</source>
        <translation>接受类别</translation>
    </message>
    <message>
        <source>Accept the judge's category of every run of the insight (A)</source>
        <translation>接受评审模型对该洞察中每个运行给出的类别（A）</translation>
    </message>
    <message>
        <source>Reject categories</source>
        <translation>拒绝类别</translation>
    </message>
    <message>
        <source>Reject the judge's category of every run of the insight (R)</source>
        <translation>拒绝评审模型对该洞察中每个运行给出的类别（R）</translation>
    </message>
    <message>
        <source>The analysis changed: press “Find insights” to regroup the failures.</source>
        <translation>分析结果已变化：请按“查找洞察”重新归组失败。</translation>
    </message>
    <message>
        <source>Grouping the decisive failures…</source>
        <translation>正在归组决定性失败…</translation>
    </message>
    <message>
        <source>Insights could not be computed: {err}</source>
        <translation>无法计算洞察：{err}</translation>
    </message>
    <message>
        <source>Saved insight edits could not be read: {err}</source>
        <translation>无法读取已保存的洞察编辑：{err}</translation>
    </message>
    <message>
        <source>No insights yet: analyse runs (Analysis ▸ Analyze all runs), then press “Find insights”.</source>
        <translation>尚无洞察：请先分析运行（分析 ▸ 分析全部运行），再按“查找洞察”。</translation>
    </message>
    <message>
        <source>{n} insights over {failed} failed runs. Keys 1-9, 0 tag every run of the selected insight; A/R accept/reject their categories; Ctrl+Z undoes.</source>
        <translation>{failed} 个失败运行共归为 {n} 个洞察。按键 1–9、0 标注所选洞察的每个运行；A/R 接受/拒绝其类别；Ctrl+Z 撤销。</translation>
    </message>
    <message>
        <source>{n} runs joined no group of two or more: see “Not grouped”.</source>
        <translation>{n} 个运行未归入任何两个及以上运行的组：见“未分组”。</translation>
    </message>
    <message>
        <source>{n} failed runs joined no group of two or more: each failed unlike the others of its category. Select a run to show it.</source>
        <translation>{n} 个失败运行未归入任何两个及以上运行的组：每个的失败方式都与同类别的其他运行不同。选择一个运行即可查看。</translation>
    </message>
    <message>
        <source>{name}
{size} runs · typical position {pos} · named by {who}
Share of each model's failed runs: {shares}
Tools: {tools}
Shared terms: {terms}</source>
        <translation>{name}
{size} 个运行 · 典型位置 {pos} · 命名来源：{who}
占各模型失败运行的比例：{shares}
工具：{tools}
共有词语：{terms}</translation>
    </message>
    <message>
        <source>the analyst</source>
        <translation>分析员</translation>
    </message>
    <message>
        <source>shared terms</source>
        <translation>共有词语</translation>
    </message>
    <message>
        <source>What to change ({kind}, {by}): {text}
Why: {evidence}</source>
        <translation>应改进之处（{kind}，来源：{by}）：{text}
依据：{evidence}</translation>
    </message>
    <message>
        <source>rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>the model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>tool or infrastructure</source>
        <translation>工具或基础设施</translation>
    </message>
    <message>
        <source>tool description or schema</source>
        <translation>工具描述或模式</translation>
    </message>
    <message>
        <source>verification checkpoint</source>
        <translation>验证检查点</translation>
    </message>
    <message>
        <source>system prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Renamed an insight</source>
        <translation>已重命名一个洞察</translation>
    </message>
    <message>
        <source>Rename insight</source>
        <translation>重命名洞察</translation>
    </message>
    <message>
        <source>Name (empty: named from the shared terms):</source>
        <translation>名称（留空：按共有词语命名）：</translation>
    </message>
    <message>
        <source>Edited what to change for an insight</source>
        <translation>已编辑一个洞察的改进建议</translation>
    </message>
    <message>
        <source>What to change</source>
        <translation>应改进之处</translation>
    </message>
    <message>
        <source>Suggested change ({kind}). Why: {evidence}
Empty: back to the rule's suggestion.</source>
        <translation>建议的改动（{kind}）。依据：{evidence}
留空：恢复为规则给出的建议。</translation>
    </message>
    <message>
        <source>Split an insight of {n} runs</source>
        <translation>已拆分一个含 {n} 个运行的洞察</translation>
    </message>
    <message>
        <source>Merged two insights ({n} runs)</source>
        <translation>已合并两个洞察（{n} 个运行）</translation>
    </message>
    <message>
        <source>no category</source>
        <translation>无类别</translation>
    </message>
    <message>
        <source>Tagged the {n} runs of an insight as {category}</source>
        <translation>已将一个洞察的 {n} 个运行标注为 {category}</translation>
    </message>
    <message>
        <source>Accepted the categories of the {n} runs of an insight</source>
        <translation>已接受一个洞察中 {n} 个运行的类别</translation>
    </message>
    <message>
        <source>Rejected the categories of the {n} runs of an insight</source>
        <translation>已拒绝一个洞察中 {n} 个运行的类别</translation>
    </message>
</context>
<context>
    <name>InspectorPane</name>
    <message>
        <source>Select a run, a step or a finding to inspect it.</source>
        <translation>选择一个运行、步骤或发现以查看详情。</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>score</source>
        <translation>得分</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>at step {s}</source>
        <translation>位于步骤 {s}</translation>
    </message>
    <message>
        <source>Not analysed yet. Analysis ▸ Analyze selected runs (Ctrl+R).</source>
        <translation>尚未分析。请使用 分析 ▸ 分析所选运行（Ctrl+R）。</translation>
    </message>
    <message>
        <source>Label in the file</source>
        <translation>文件中的标注</translation>
    </message>
    <message>
        <source>Analyst</source>
        <translation>分析员</translation>
    </message>
    <message>
        <source>Step {n}</source>
        <translation>步骤 {n}</translation>
    </message>
    <message>
        <source>value</source>
        <translation>价值</translation>
    </message>
    <message>
        <source>drop</source>
        <translation>下降</translation>
    </message>
    <message>
        <source>alignment</source>
        <translation>对齐度</translation>
    </message>
    <message>
        <source>decisive score</source>
        <translation>决定性得分</translation>
    </message>
    <message>
        <source>judge value</source>
        <translation>评审价值</translation>
    </message>
    <message>
        <source>This step reports an error.</source>
        <translation>此步骤报告了错误。</translation>
    </message>
    <message>
        <source>Tool call</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>Source id</source>
        <translation>来源 ID</translation>
    </message>
    <message>
        <source>… {n} more characters</source>
        <translation>… 还有 {n} 个字符</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>Evidence: steps</source>
        <translation>证据：步骤</translation>
    </message>
    <message>
        <source>Findings ({n})</source>
        <translation>发现（{n}）</translation>
    </message>
    <message>
        <source>step {n}</source>
        <translation>步骤 {n}</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Failed tests</source>
        <translation>未通过的测试</translation>
    </message>
    <message>
        <source>{failed} of {total}</source>
        <translation>{total} 个中 {failed} 个</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Framework</source>
        <translation>框架</translation>
    </message>
    <message>
        <source>Task family</source>
        <translation>任务类别</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步骤数</translation>
    </message>
    <message>
        <source>{n} ({e} errors)</source>
        <translation>{n}（{e} 个错误）</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>令牌</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Final answer</source>
        <translation>最终答案</translation>
    </message>
    <message>
        <source>stale</source>
        <translation>过期</translation>
    </message>
    <message>
        <source>made by an older analysis version; Analysis ▸ Refresh stale analysis</source>
        <translation>由旧的分析版本生成；请使用 分析 ▸ 刷新过期分析</translation>
    </message>
    <message>
        <source>Stale</source>
        <translation>过期</translation>
    </message>
    <message>
        <source>no step stands out; the candidates are marked in the transcript</source>
        <translation>没有哪个步骤明显突出；候选步骤已在记录中标出</translation>
    </message>
    <message>
        <source>uncertain: {steps}</source>
        <translation>不确定：{steps}</translation>
    </message>
    <message>
        <source>Decisive step</source>
        <translation>决定性步骤</translation>
    </message>
    <message>
        <source>Responsible agent</source>
        <translation>责任智能体</translation>
    </message>
    <message>
        <source>Curve vs. decisive step</source>
        <translation>价值曲线与决定性步骤</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Candidates</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Rationale</source>
        <translation>理由</translation>
    </message>
    <message>
        <source>Largest drop</source>
        <translation>最大下降</translation>
    </message>
    <message>
        <source>Lowest value</source>
        <translation>最低价值</translation>
    </message>
    <message>
        <source>Estimator</source>
        <translation>估计器</translation>
    </message>
    <message>
        <source>Judge</source>
        <translation>评审模型</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Review</source>
        <translation>审阅</translation>
    </message>
</context>
<context>
    <name>JobsIndicator</name>
    <message>
        <source>Loading</source>
        <translation>正在加载</translation>
    </message>
    <message>
        <source>Analysing</source>
        <translation>正在分析</translation>
    </message>
    <message>
        <source>Judge value curve</source>
        <translation>评审价值曲线</translation>
    </message>
    <message>
        <source>Adapting the ranker</source>
        <translation>正在适配排序器</translation>
    </message>
    <message>
        <source>Grouping failures</source>
        <translation>正在归组失败</translation>
    </message>
    <message>
        <source>Exporting</source>
        <translation>正在导出</translation>
    </message>
    <message>
        <source>Working</source>
        <translation>正在处理</translation>
    </message>
    <message>
        <source>Cancel stops after the current file</source>
        <translation>取消将在当前文件处理完后停止</translation>
    </message>
    <message>
        <source>Cancel stops after the current run (with the judge: after the current judge call)</source>
        <translation>取消将在当前运行处理完后停止（使用评审模型时：在当前评审调用结束后）</translation>
    </message>
    <message>
        <source>Cancel stops at the next step of the work</source>
        <translation>取消将在工作的下一步停止</translation>
    </message>
    <message>
        <source>about {n} s left</source>
        <translation>约剩 {n} 秒</translation>
    </message>
    <message>
        <source>about {n} min left</source>
        <translation>约剩 {n} 分钟</translation>
    </message>
    <message>
        <source>about {h} h {m} min left</source>
        <translation>约剩 {h} 小时 {m} 分钟</translation>
    </message>
    <message>
        <source>finishing</source>
        <translation>即将完成</translation>
    </message>
    <message>
        <source>run {i}/{n}</source>
        <translation>运行 {i}/{n}</translation>
    </message>
    <message>
        <source>judge: category of step {step}</source>
        <translation>评审：第 {step} 步的类别</translation>
    </message>
    <message>
        <source>judge: comparing steps {steps}</source>
        <translation>评审：比较第 {steps} 步</translation>
    </message>
    <message>
        <source>judge value curve: step {step}/{steps}</source>
        <translation>评审价值曲线：第 {step}/{steps} 步</translation>
    </message>
    <message>
        <source>{n} steps</source>
        <translation>{n} 步</translation>
    </message>
    <message>
        <source>cancelling after the current item…</source>
        <translation>当前项完成后取消…</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>step {step}/{steps}</source>
        <translation>第 {step}/{steps} 步</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>started on its own</source>
        <translation>自动启动</translation>
    </message>
    <message>
        <source>Cancel all</source>
        <translation>全部取消</translation>
    </message>
    <message>
        <source>No background jobs are running.</source>
        <translation>没有正在运行的后台任务。</translation>
    </message>
    <message>
        <source>{n} running jobs</source>
        <translation>{n} 个正在运行的任务</translation>
    </message>
    <message>
        <source>Every running job, with its progress and Cancel</source>
        <translation>所有正在运行的任务，以及进度和取消按钮</translation>
    </message>
    <message>
        <source>Jobs ({n}) ▾</source>
        <translation>任务 ({n}) ▾</translation>
    </message>
    <message>
        <source>Cancel “{title}”. {unit}</source>
        <translation>取消“{title}”。{unit}</translation>
    </message>
</context>
<context>
    <name>JudgeDialog</name>
    <message>
        <source>Judge model</source>
        <translation>评审模型</translation>
    </message>
    <message>
        <source>The judge is a small local language model that re-ranks candidate decisive steps, names the failure category and draws its own value curve. Without it the analysis uses the fast cheap estimator only. Nothing is downloaded.</source>
        <translation>评审模型是一个本地小型语言模型，用于重新排序候选决定性步骤、判断失败类别并绘制自己的价值曲线。不使用它时，分析只使用快速的廉价估计器。不会下载任何内容。</translation>
    </message>
    <message>
        <source>No judge: cheap estimator only (fastest)</source>
        <translation>不使用评审模型：仅用快速估计器（最快）</translation>
    </message>
    <message>
        <source>Bundled model (default)</source>
        <translation>内置模型（默认）</translation>
    </message>
    <message>
        <source>No judge: cheap estimator only (the default while the bundled judge is not installed)</source>
        <translation>不使用评审模型：仅使用快速估计器（未安装内置评审模型时的默认选项）</translation>
    </message>
    <message>
        <source>Bundled model (the default one is not installed)</source>
        <translation>内置模型（默认模型未安装）</translation>
    </message>
    <message>
        <source>The default bundled judge cannot be used: {reason}</source>
        <translation>无法使用默认的内置评审模型：{reason}</translation>
    </message>
    <message>
        <source>Any GGUF file</source>
        <translation>任意 GGUF 文件</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>Bundled model (not installed)</source>
        <translation>内置模型（未安装）</translation>
    </message>
    <message>
        <source>(the judge package is not installed)</source>
        <translation>（未安装评审模型包）</translation>
    </message>
    <message>
        <source>/path/to/model.gguf</source>
        <translation>/路径/model.gguf</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Choose a GGUF model</source>
        <translation>选择 GGUF 模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Choose a .gguf file, or pick the bundled model.</source>
        <translation>请选择一个 .gguf 文件，或使用内置模型。</translation>
    </message>
</context>
<context>
    <name>LoadProblemsPanel</name>
    <message>
        <source>Copy all</source>
        <translation>全部复制</translation>
    </message>
    <message>
        <source>Copy every problem as text (for a bug report)</source>
        <translation>以文本形式复制所有问题（用于提交错误报告）</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Forget the listed problems</source>
        <translation>清除列出的问题</translation>
    </message>
    <message>
        <source>Enlarge</source>
        <translation>放大</translation>
    </message>
    <message>
        <source>Give the load problems most of the window's height (again: back to its size)</source>
        <translation>让加载问题面板占据窗口的大部分高度（再次点击：恢复原大小）</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Record</source>
        <translation>记录</translation>
    </message>
    <message>
        <source>Importer</source>
        <translation>导入器</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Select a problem to read it whole.</source>
        <translation>选择一个问题以查看完整内容。</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Already loaded</source>
        <translation>已加载</translation>
    </message>
    <message>
        <source>{n} duplicate runs skipped in {f} files (not a problem: the same runs were loaded before)</source>
        <translation>在 {f} 个文件中跳过了 {n} 个重复运行（不是问题：这些运行之前已加载）</translation>
    </message>
    <message>
        <source>{n} problems in {f} files; the other files loaded.</source>
        <translation>{f} 个文件中有 {n} 个问题；其他文件已加载。</translation>
    </message>
    <message>
        <source>No load problems.</source>
        <translation>没有加载问题。</translation>
    </message>
    <message>
        <source>{n} duplicate runs skipped.</source>
        <translation>跳过了 {n} 个重复运行。</translation>
    </message>
    <message>
        <source>File: {v}</source>
        <translation>文件：{v}</translation>
    </message>
    <message>
        <source>Record: {v}</source>
        <translation>记录：{v}</translation>
    </message>
    <message>
        <source>Importer: {v}</source>
        <translation>导入器：{v}</translation>
    </message>
</context>
<context>
    <name>LoadReason</name>
    <message>
        <source>file not found</source>
        <translation>找不到文件</translation>
    </message>
    <message>
        <source>not a regular file (pipe, socket or device)</source>
        <translation>不是普通文件（管道、套接字或设备）</translation>
    </message>
    <message>
        <source>cannot read file: {error}</source>
        <translation>无法读取文件：{error}</translation>
    </message>
    <message>
        <source>file is {size}, over the {cap} cap ({setting}); not read</source>
        <translation>文件大小为 {size}，超过了 {cap} 的上限（{setting}）；未读取</translation>
    </message>
    <message>
        <source>file holds no runs</source>
        <translation>文件中没有运行</translation>
    </message>
    <message>
        <source>importer plugin failed to load: {error}</source>
        <translation>导入器插件加载失败：{error}</translation>
    </message>
    <message>
        <source>the same record appears twice in this file; the later copy was skipped</source>
        <translation>同一条记录在此文件中出现了两次；已跳过后一份</translation>
    </message>
    <message>
        <source>unexpected content ({error})</source>
        <translation>意外的内容（{error}）</translation>
    </message>
    <message>
        <source>unexpected content ({error}); the runs before it are kept, later ones were not read</source>
        <translation>意外的内容（{error}）；之前的运行已保留，之后的运行未读取</translation>
    </message>
    <message>
        <source>data is nested too deeply to read safely</source>
        <translation>数据嵌套过深，无法安全读取</translation>
    </message>
    <message>
        <source>data is nested too deeply to read safely; the runs before it are kept, later ones were not read</source>
        <translation>数据嵌套过深，无法安全读取；之前的运行已保留，之后的运行未读取</translation>
    </message>
    <message>
        <source>file is too large to read into memory</source>
        <translation>文件过大，无法读入内存</translation>
    </message>
    <message>
        <source>file is too large to read into memory; the runs before it are kept, later ones were not read</source>
        <translation>文件过大，无法读入内存；之前的运行已保留，之后的运行未读取</translation>
    </message>
    <message>
        <source>record is nested too deeply to read safely; record skipped</source>
        <translation>记录嵌套过深，无法安全读取；已跳过该记录</translation>
    </message>
    <message>
        <source>unexpected content ({error}); record skipped</source>
        <translation>意外的内容（{error}）；已跳过该记录</translation>
    </message>
    <message>
        <source>importer yielded a {type}, not a trajectory; skipped</source>
        <translation>导入器产出的是 {type}，不是轨迹；已跳过</translation>
    </message>
    <message>
        <source>{where} looks binary (contains NUL bytes), not JSON text</source>
        <translation>{where}看起来是二进制数据（含 NUL 字节），不是 JSON 文本</translation>
    </message>
    <message>
        <source>{where} is empty</source>
        <translation>{where}为空</translation>
    </message>
    <message>
        <source>{where} is nested too deeply to read safely</source>
        <translation>{where}嵌套过深，无法安全读取</translation>
    </message>
    <message>
        <source>{where} is truncated or incomplete JSON ({error})</source>
        <translation>{where}被截断或不是完整的 JSON（{error}）</translation>
    </message>
    <message>
        <source>{where} is not valid JSON ({error})</source>
        <translation>{where}不是有效的 JSON（{error}）</translation>
    </message>
    <message>
        <source>record is damaged JSON at bytes {start}-{end} ({error}); record skipped, the others are read</source>
        <translation>记录在字节 {start}-{end} 处是损坏的 JSON（{error}）；已跳过该记录，其他记录照常读取</translation>
    </message>
    <message>
        <source>file is empty</source>
        <translation>文件为空</translation>
    </message>
    <message>
        <source>file holds only whitespace</source>
        <translation>文件只包含空白字符</translation>
    </message>
    <message>
        <source>file is {size}, over the {cap} cap for one JSON document ({setting}); write it as JSONL instead</source>
        <translation>文件大小为 {size}，超过了单个 JSON 文档 {cap} 的上限（{setting}）；请改用 JSONL 格式</translation>
    </message>
    <message>
        <source>line is longer than {cap}, the cap ({setting}); skipped</source>
        <translation>该行超过 {cap}，即上限（{setting}）；已跳过</translation>
    </message>
    <message>
        <source>no importer recognised this file</source>
        <translation>没有导入器能识别此文件</translation>
    </message>
    <message>
        <source>no importer recognised this file (tried: {tried})</source>
        <translation>没有导入器能识别此文件（已尝试：{tried}）</translation>
    </message>
    <message>
        <source>{where} is {shape}, a shape no importer recognised</source>
        <translation>{where}的内容为 {shape}，没有导入器认识这种结构</translation>
    </message>
    <message>
        <source>{where} is {shape}, a shape no importer recognised (tried: {tried})</source>
        <translation>{where}的内容为 {shape}，没有导入器认识这种结构（已尝试：{tried}）</translation>
    </message>
    <message>
        <source>{n} duplicate runs skipped: the same records of the same source already loaded from this file</source>
        <translation>已跳过 {n} 个重复运行：同一来源的相同记录已从此文件加载</translation>
    </message>
    <message>
        <source>1 duplicate run skipped: the same record of the same source already loaded from this file</source>
        <translation>已跳过 1 个重复运行：同一来源的相同记录已从此文件加载</translation>
    </message>
    <message>
        <source>{n} duplicate runs skipped: the same records of the same source already loaded from {source}</source>
        <translation>已跳过 {n} 个重复运行：同一来源的相同记录已从 {source} 加载</translation>
    </message>
    <message>
        <source>1 duplicate run skipped: the same record of the same source already loaded from {source}</source>
        <translation>已跳过 1 个重复运行：同一来源的相同记录已从 {source} 加载</translation>
    </message>
    <message>
        <source>{n} duplicate runs skipped: the same records of the same source already loaded from {files} other files</source>
        <translation>已跳过 {n} 个重复运行：同一来源的相同记录已从其他 {files} 个文件加载</translation>
    </message>
    <message>
        <source>1 duplicate run skipped: the same record of the same source already loaded from {files} other files</source>
        <translation>已跳过 1 个重复运行：同一来源的相同记录已从其他 {files} 个文件加载</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>line {n}</source>
        <translation>第 {n} 行</translation>
    </message>
    <message>
        <source>line</source>
        <translation>该行</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <source>Value curve</source>
        <translation>价值曲线</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Compare models</source>
        <translation>模型比较</translation>
    </message>
    <message>
        <source>Contrast</source>
        <translation>对照</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Load problems</source>
        <translation>加载问题</translation>
    </message>
    <message>
        <source>&amp;Open files…</source>
        <translation>打开文件(&amp;O)…</translation>
    </message>
    <message>
        <source>Open trace files (any supported format)</source>
        <translation>打开轨迹文件（任何支持的格式）</translation>
    </message>
    <message>
        <source>Open &amp;folder…</source>
        <translation>打开文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>Open every trace file in a folder (recursively)</source>
        <translation>打开文件夹中的所有轨迹文件（递归）</translation>
    </message>
    <message>
        <source>Runs table as &amp;CSV…</source>
        <translation>运行表导出为 &amp;CSV…</translation>
    </message>
    <message>
        <source>Write the runs the table shows as a spreadsheet-safe CSV</source>
        <translation>将表格中显示的运行写入可安全用于电子表格的 CSV 文件</translation>
    </message>
    <message>
        <source>Runs table as &amp;Parquet…</source>
        <translation>运行表导出为 &amp;Parquet…</translation>
    </message>
    <message>
        <source>Write the runs the table shows as Parquet</source>
        <translation>将表格中显示的运行写入 Parquet 文件</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>Language, theme and judge model</source>
        <translation>语言、主题和评审模型</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Quit TrajScope</source>
        <translation>退出 TrajScope</translation>
    </message>
    <message>
        <source>Analyze &amp;selected runs</source>
        <translation>分析所选运行(&amp;S)</translation>
    </message>
    <message>
        <source>Find the decisive step, failure category and value curve of the selected runs</source>
        <translation>找出所选运行的决定性步骤、失败类别和价值曲线</translation>
    </message>
    <message>
        <source>Analyze &amp;all runs</source>
        <translation>分析全部运行(&amp;A)</translation>
    </message>
    <message>
        <source>Analyse every run the table shows</source>
        <translation>分析表格中显示的所有运行</translation>
    </message>
    <message>
        <source>Refresh s&amp;tale analysis</source>
        <translation>刷新过期分析(&amp;T)</translation>
    </message>
    <message>
        <source>Re-analyse only the runs whose stored results come from an older analysis version</source>
        <translation>只重新分析那些已保存结果来自旧分析版本的运行</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>Stop background work after the current file or run</source>
        <translation>在当前文件或运行完成后停止后台工作</translation>
    </message>
    <message>
        <source>Judge &amp;value curve of this run</source>
        <translation>此运行的评审价值曲线(&amp;V)</translation>
    </message>
    <message>
        <source>Ask the judge for its per-step value curve of the selected run (runs in the background)</source>
        <translation>请评审模型为所选运行计算逐步价值曲线（在后台运行）</translation>
    </message>
    <message>
        <source>&amp;Judge model…</source>
        <translation>评审模型(&amp;J)…</translation>
    </message>
    <message>
        <source>Choose the local judge model (bundled or any .gguf file)</source>
        <translation>选择本地评审模型（内置模型或任意 .gguf 文件）</translation>
    </message>
    <message>
        <source>Next step</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Select the next step</source>
        <translation>选中下一步</translation>
    </message>
    <message>
        <source>Previous step</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>Select the previous step</source>
        <translation>选中上一步</translation>
    </message>
    <message>
        <source>Next finding</source>
        <translation>下一个发现</translation>
    </message>
    <message>
        <source>Jump to the next finding of this run</source>
        <translation>跳到此运行的下一个发现</translation>
    </message>
    <message>
        <source>Previous finding</source>
        <translation>上一个发现</translation>
    </message>
    <message>
        <source>Jump to the previous finding of this run</source>
        <translation>跳到此运行的上一个发现</translation>
    </message>
    <message>
        <source>Go to decisive step</source>
        <translation>转到决定性步骤</translation>
    </message>
    <message>
        <source>Select the decisive step of this run</source>
        <translation>选中此运行的决定性步骤</translation>
    </message>
    <message>
        <source>Find in run…</source>
        <translation>在运行中查找…</translation>
    </message>
    <message>
        <source>Search the steps of the current run</source>
        <translation>搜索当前运行的步骤</translation>
    </message>
    <message>
        <source>Filter runs…</source>
        <translation>筛选运行…</translation>
    </message>
    <message>
        <source>Search and filter the runs table</source>
        <translation>搜索和筛选运行表</translation>
    </message>
    <message>
        <source>Run view</source>
        <translation>运行视图</translation>
    </message>
    <message>
        <source>Show the run view</source>
        <translation>显示运行视图</translation>
    </message>
    <message>
        <source>Compare models side by side</source>
        <translation>并排比较各模型</translation>
    </message>
    <message>
        <source>Contrast with a success</source>
        <translation>与成功运行对照</translation>
    </message>
    <message>
        <source>The failed run side by side with a success of the same task</source>
        <translation>将失败运行与同一任务的成功运行并排显示</translation>
    </message>
    <message>
        <source>Reset layout</source>
        <translation>重置布局</translation>
    </message>
    <message>
        <source>Put every pane back in its place</source>
        <translation>将所有面板恢复到默认位置</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>List every keyboard shortcut</source>
        <translation>列出所有键盘快捷键</translation>
    </message>
    <message>
        <source>&amp;About TrajScope</source>
        <translation>关于 TrajScope(&amp;A)</translation>
    </message>
    <message>
        <source>Version and licence</source>
        <translation>版本和许可证</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Analysis</source>
        <translation>分析(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Navigate</source>
        <translation>导航(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Main toolbar</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Show the files that could not be read, with the reason</source>
        <translation>显示无法读取的文件及原因</translation>
    </message>
    <message>
        <source>The tagging desk could not be loaded: {err}</source>
        <translation>无法加载标注台：{err}</translation>
    </message>
    <message>
        <source>Showing the stored analysis of {n} runs from the workspace.</source>
        <translation>正在显示工作区中已保存的 {n} 个运行的分析结果。</translation>
    </message>
    <message>
        <source>{n} are stale (made by an older analysis version).</source>
        <translation>其中 {n} 个已过期（由旧的分析版本生成）。</translation>
    </message>
    <message>
        <source>Refresh stale analysis</source>
        <translation>刷新过期分析</translation>
    </message>
    <message>
        <source>Open trace files</source>
        <translation>打开轨迹文件</translation>
    </message>
    <message>
        <source>Traces (*.json *.jsonl *.ndjson *.traj *.eval *.gz *.zst);;All files (*)</source>
        <translation>轨迹 (*.json *.jsonl *.ndjson *.traj *.eval *.gz *.zst);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open a folder of traces</source>
        <translation>打开轨迹文件夹</translation>
    </message>
    <message>
        <source>(nothing yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <source>Clear recent</source>
        <translation>清除最近记录</translation>
    </message>
    <message>
        <source>Not found: {paths}</source>
        <translation>未找到：{paths}</translation>
    </message>
    <message>
        <source>Loading failed: {msg}</source>
        <translation>加载失败：{msg}</translation>
    </message>
    <message>
        <source>Cannot open the corpus {path}: {msg}</source>
        <translation>无法打开语料库 {path}：{msg}</translation>
    </message>
    <message>
        <source>Opened the corpus {path}: {runs} runs. A run’s steps are read from disk when you open it.</source>
        <translation>已打开语料库 {path}：{runs} 个运行。打开某个运行时才从磁盘读取它的步骤。</translation>
    </message>
    <message>
        <source>Loading cancelled: {runs} runs from {files} files were loaded.</source>
        <translation>加载已取消：已从 {files} 个文件加载 {runs} 个运行。</translation>
    </message>
    <message>
        <source>Loaded {runs} runs from {files} files.</source>
        <translation>已从 {files} 个文件加载 {runs} 个运行。</translation>
    </message>
    <message>
        <source>{n} runs were already loaded and were skipped.</source>
        <translation>{n} 个运行之前已加载，已跳过。</translation>
    </message>
    <message>
        <source>{n} files or records could not be read (see Load problems).</source>
        <translation>{n} 个文件或记录无法读取（见“加载问题”）。</translation>
    </message>
    <message>
        <source>{n} load problems in all.</source>
        <translation>共有 {n} 个加载问题。</translation>
    </message>
    <message>
        <source>Show problems</source>
        <translation>显示问题</translation>
    </message>
    <message>
        <source>Select one or more runs in the table first.</source>
        <translation>请先在表格中选择一个或多个运行。</translation>
    </message>
    <message>
        <source>Open traces first (File ▸ Open).</source>
        <translation>请先打开轨迹（文件 ▸ 打开）。</translation>
    </message>
    <message>
        <source>An analysis is already running; cancel it first.</source>
        <translation>已有分析在运行；请先取消它。</translation>
    </message>
    <message>
        <source>The analysis engine is not available in this installation.</source>
        <translation>此安装中没有分析引擎。</translation>
    </message>
    <message>
        <source>Analysis failed: {msg}</source>
        <translation>分析失败：{msg}</translation>
    </message>
    <message>
        <source>The selected run is no longer loaded.</source>
        <translation>所选运行已不再加载。</translation>
    </message>
    <message>
        <source>This run has no steps, so there is no value curve to compute.</source>
        <translation>此运行没有步骤，因此无法计算价值曲线。</translation>
    </message>
    <message>
        <source>The judge value curve reads failed runs. This run records no outcome and likely passed ({p}); if it failed, mark it with Shift+F and start the curve again.</source>
        <translation>评审价值曲线只读取失败的运行。此运行没有记录结果，估计可能成功（{p}）；若它失败了，请按 Shift+F 标记后再次启动曲线。</translation>
    </message>
    <message>
        <source>The judge value curve reads failed runs, and this run succeeded. If it failed, mark it with Shift+F and start the curve again.</source>
        <translation>评审价值曲线只读取失败的运行，而此运行已成功。若它实际失败，请按 Shift+F 标记后再次启动曲线。</translation>
    </message>
    <message>
        <source>The judge value curve reads failed runs, and this run's outcome is unknown (nothing recorded, no estimate). Mark it as failed with Shift+F to compute its curve.</source>
        <translation>评审价值曲线只读取失败的运行，而此运行的结果未知（既无记录也无估计）。请按 Shift+F 标记为失败以计算其曲线。</translation>
    </message>
    <message>
        <source>The judge curve failed: {msg}</source>
        <translation>评审价值曲线计算失败：{msg}</translation>
    </message>
    <message>
        <source>The judge model could not be loaded, so the analysis runs without it: {reason}</source>
        <translation>无法加载评审模型，分析将在没有它的情况下进行：{reason}</translation>
    </message>
    <message>
        <source>Choose judge…</source>
        <translation>选择评审模型…</translation>
    </message>
    <message>
        <source>Loading {n} files and folders</source>
        <translation>正在加载 {n} 个文件和文件夹</translation>
    </message>
    <message>
        <source>Analysing {n} runs</source>
        <translation>正在分析 {n} 个运行</translation>
    </message>
    <message>
        <source>Select a run in the table first.</source>
        <translation>请先在表格中选择一个运行。</translation>
    </message>
    <message>
        <source>No judge is chosen: pick one in Analysis ▸ Judge model.</source>
        <translation>尚未选择评审模型：请在 分析 ▸ 评审模型 中选择。</translation>
    </message>
    <message>
        <source>The judge value curve of this run starts when the current one ends.</source>
        <translation>当前评审价值曲线完成后，将开始计算此运行的曲线。</translation>
    </message>
    <message>
        <source>Judge value curve of {run}</source>
        <translation>{run} 的评审价值曲线</translation>
    </message>
    <message>
        <source>Analysis cancelled after {n} of {total} runs; their results are kept.</source>
        <translation>分析已在完成 {n}/{total} 个运行后取消；已完成的结果会保留。</translation>
    </message>
    <message>
        <source>Analysed {n} runs (ranker: {ranker}).</source>
        <translation>已分析 {n} 个运行（排序器：{ranker}）。</translation>
    </message>
    <message>
        <source>Analysed {n} runs.</source>
        <translation>已分析 {n} 个运行。</translation>
    </message>
    <message>
        <source>{n} problems during the analysis (the other results are complete).</source>
        <translation>分析过程中出现 {n} 个问题（其他结果完整）。</translation>
    </message>
    <message>
        <source>No stale analysis results: every analysed run is current.</source>
        <translation>没有过期的分析结果：所有已分析的运行都是最新的。</translation>
    </message>
    <message>
        <source>Loading</source>
        <translation>正在加载</translation>
    </message>
    <message>
        <source>{n} runs</source>
        <translation>{n} 个运行</translation>
    </message>
    <message>
        <source>{n} failed ({k} likely)</source>
        <translation>{n} 个失败（{k} 个为估计）</translation>
    </message>
    <message>
        <source>{k} of the failed runs record no outcome: their failure is estimated from the run (likely failed); Shift+F / Shift+S set an outcome</source>
        <translation>其中 {k} 个失败运行没有记录结果：失败是根据运行估计的（可能失败）；Shift+F / Shift+S 可设定结果</translation>
    </message>
    <message>
        <source>{n} failed</source>
        <translation>{n} 个失败</translation>
    </message>
    <message>
        <source>{n} runs have no known outcome</source>
        <translation>{n} 个运行的结果未知</translation>
    </message>
    <message>
        <source>{n} tagged</source>
        <translation>{n} 个已标注</translation>
    </message>
    <message>
        <source>{n} load problems</source>
        <translation>{n} 个加载问题</translation>
    </message>
    <message>
        <source>Export runs</source>
        <translation>导出运行</translation>
    </message>
    <message>
        <source>Could not export: {err}</source>
        <translation>无法导出：{err}</translation>
    </message>
    <message>
        <source>Exported {n} runs to {path}.</source>
        <translation>已将 {n} 个运行导出到 {path}。</translation>
    </message>
    <message>
        <source>Enter / Shift+Enter</source>
        <translation>Enter / Shift+Enter</translation>
    </message>
    <message>
        <source>Next / previous match in the run search</source>
        <translation>运行内搜索的下一个/上一个匹配</translation>
    </message>
    <message>
        <source>Click on a plot</source>
        <translation>点击图表</translation>
    </message>
    <message>
        <source>Select the nearest step everywhere</source>
        <translation>在所有视图中选中最近的步骤</translation>
    </message>
    <message>
        <source>Shift/Ctrl+click</source>
        <translation>Shift/Ctrl+点击</translation>
    </message>
    <message>
        <source>Select several runs or steps</source>
        <translation>选择多个运行或步骤</translation>
    </message>
    <message>
        <source>D / Shift+D (Contrast tab)</source>
        <translation>D / Shift+D（对照标签页）</translation>
    </message>
    <message>
        <source>Next / previous difference from the success</source>
        <translation>与成功运行的下一处 / 上一处差异</translation>
    </message>
    <message>
        <source>About TrajScope</source>
        <translation>关于 TrajScope</translation>
    </message>
    <message>
        <source>&lt;h3&gt;TrajScope {version}&lt;/h3&gt;&lt;p&gt;Where and why did an LLM agent run fail?&lt;/p&gt;&lt;p&gt;Works offline: traces, models and results never leave this computer.&lt;/p&gt;&lt;p&gt;Apache-2.0 licence.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;TrajScope {version}&lt;/h3&gt;&lt;p&gt;LLM 智能体的运行在哪里、为什么失败？&lt;/p&gt;&lt;p&gt;完全离线：轨迹、模型和结果都不会离开这台电脑。&lt;/p&gt;&lt;p&gt;Apache-2.0 许可证。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>Message</name>
    <message>
        <source>Copy details</source>
        <translation>复制详情</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>Outcome</name>
    <message>
        <source>success</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failure</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>failure?</source>
        <translation>失败?</translation>
    </message>
    <message>
        <source>success?</source>
        <translation>成功?</translation>
    </message>
    <message>
        <source>likely failed ({p})</source>
        <translation>可能失败（{p}）</translation>
    </message>
    <message>
        <source>likely passed ({p})</source>
        <translation>可能通过（{p}）</translation>
    </message>
    <message>
        <source>No outcome is recorded; estimated from the run's cues: P(failed) = {p}. Shift+F / Shift+S set it.</source>
        <translation>未记录结果；根据运行线索估计：P(失败) = {p}。Shift+F / Shift+S 可设定结果。</translation>
    </message>
    <message>
        <source>Set by the analyst; the file says: {recorded}</source>
        <translation>由分析员设定；文件记录为：{recorded}</translation>
    </message>
    <message>
        <source>Recorded ({source})</source>
        <translation>已记录（{source}）</translation>
    </message>
    <message>
        <source>Not recorded; Shift+F / Shift+S / Shift+U set it.</source>
        <translation>未记录；Shift+F / Shift+S / Shift+U 可设定结果。</translation>
    </message>
</context>
<context>
    <name>PairedView</name>
    <message>
        <source>Click a task to open both runs side by side</source>
        <translation>点击任务，并排打开两个运行</translation>
    </message>
    <message>
        <source>Select two models in the table (Ctrl+click) to compare them task by task.</source>
        <translation>在表格中选择两个模型（Ctrl+点击），逐任务比较它们。</translation>
    </message>
    <message>
        <source>task id</source>
        <translation>任务 ID</translation>
    </message>
    <message>
        <source>task text</source>
        <translation>任务文本</translation>
    </message>
    <message>
        <source>&lt;b&gt;{a}&lt;/b&gt; vs &lt;b&gt;{b}&lt;/b&gt; on {n} shared tasks (matched by {key})</source>
        <translation>&lt;b&gt;{a}&lt;/b&gt; 对比 &lt;b&gt;{b}&lt;/b&gt;：{n} 个共同任务（按{key}匹配）</translation>
    </message>
    <message>
        <source>No task was attempted by both models with a known outcome.</source>
        <translation>没有两个模型都尝试过且结果已知的任务。</translation>
    </message>
    <message>
        <source>Wins {w} · losses {l} · ties {t} (both passed {both}, both failed {neither})</source>
        <translation>胜 {w} · 负 {l} · 平 {t}（都通过 {both}，都失败 {neither}）</translation>
    </message>
    <message>
        <source>Exact McNemar p = {p:.3g} on {d} discordant tasks</source>
        <translation>精确 McNemar 检验 p = {p:.3g}（{d} 个结果不一致的任务）</translation>
    </message>
    <message>
        <source>Pass rate {ra:.0%} vs {rb:.0%}: difference {d:+.1%}, {level:.0%} bootstrap CI [{lo:+.1%}, {hi:+.1%}]</source>
        <translation>通过率 {ra:.0%} 对比 {rb:.0%}：差值 {d:+.1%}，{level:.0%} 自助法置信区间 [{lo:+.1%}, {hi:+.1%}]</translation>
    </message>
    <message>
        <source>{n} tasks were attempted more than once by one model; the majority outcome counts.</source>
        <translation>有 {n} 个任务被某个模型尝试了多次；按多数结果计。</translation>
    </message>
    <message>
        <source>Very few shared tasks: read these numbers as a hint, not a result.</source>
        <translation>共同任务很少：这些数字只能作为提示，不能当作结论。</translation>
    </message>
    <message>
        <source>Task where they differ</source>
        <translation>结果不同的任务</translation>
    </message>
    <message>
        <source>Only passed by</source>
        <translation>仅此模型通过</translation>
    </message>
    <message>
        <source>{winner} passed, {loser} failed</source>
        <translation>{winner} 通过，{loser} 失败</translation>
    </message>
</context>
<context>
    <name>RankerVersionsDialog</name>
    <message>
        <source>Ranker versions</source>
        <translation>排序器版本</translation>
    </message>
    <message>
        <source>Analyses use the active ranker. Older versions are kept; pick one to use it again.</source>
        <translation>分析使用当前启用的排序器。旧版本会保留；选择一个即可重新使用。</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Analyst</source>
        <translation>分析员</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>标签来源</translation>
    </message>
    <message>
        <source>λ</source>
        <translation>λ</translation>
    </message>
    <message>
        <source>Shipped step@1</source>
        <translation>内置 step@1</translation>
    </message>
    <message>
        <source>Adapted step@1</source>
        <translation>适配后 step@1</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>Shipped weights</source>
        <translation>内置权重</translation>
    </message>
    <message>
        <source>Use selected</source>
        <translation>使用所选</translation>
    </message>
</context>
<context>
    <name>Rationale</name>
    <message>
        <source>{category}: {body}</source>
        <translation>{category}：{body}</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>{body} ({tail})</source>
        <translation>{body}（{tail}）</translation>
    </message>
    <message>
        <source>{step} commits to an approach that is later revised or fails</source>
        <translation>{step} 采用的方案随后被修改或失败</translation>
    </message>
    <message>
        <source>{step} turns away from the stated task to a goal nobody asked for</source>
        <translation>{step} 偏离了既定任务，转向无人要求的目标</translation>
    </message>
    <message>
        <source>{step} ignores or contradicts a fact an observation already gave</source>
        <translation>{step} 忽视或违背了观察结果中已给出的事实</translation>
    </message>
    <message>
        <source>{step} makes a mistake that later steps build on and carry forward</source>
        <translation>{step} 犯下了一个错误，后续步骤在此基础上继续并把它延续下去</translation>
    </message>
    <message>
        <source>{step} repeats an earlier action without progress</source>
        <translation>{step} 重复了先前的操作，毫无进展</translation>
    </message>
    <message>
        <source>{step} leaves an error unhandled (retried unchanged, ignored or misdiagnosed)</source>
        <translation>{step} 没有处理错误（原样重试、忽略或误判）</translation>
    </message>
    <message>
        <source>{step} claims success without verification, yet the run failed</source>
        <translation>{step} 未经验证就声称成功，但运行实际失败</translation>
    </message>
    <message>
        <source>{step} claims facts or results that no observation supports</source>
        <translation>{step} 声称的事实或结果没有任何观察结果支持</translation>
    </message>
    <message>
        <source>{step} meets a tool, API or infrastructure failure</source>
        <translation>{step} 遇到了工具、API 或基础设施故障</translation>
    </message>
    <message>
        <source>{step} is where the run most likely went wrong</source>
        <translation>运行最可能在 {step} 出错</translation>
    </message>
    <message>
        <source>it says {quote}</source>
        <translation>其内容为 {quote}</translation>
    </message>
    <message>
        <source>{quote_step} says {quote}</source>
        <translation>{quote_step} 写道 {quote}</translation>
    </message>
    <message>
        <source>the output at {quote_step} reads {quote}</source>
        <translation>{quote_step} 的输出为 {quote}</translation>
    </message>
    <message>
        <source>the {tool} output at {quote_step} reads {quote}</source>
        <translation>{quote_step} 的 {tool} 输出为 {quote}</translation>
    </message>
    <message>
        <source>it calls {tool} with {quote}</source>
        <translation>它以 {quote} 调用 {tool}</translation>
    </message>
    <message>
        <source>{quote_step} calls {tool} with {quote}</source>
        <translation>{quote_step} 以 {quote} 调用 {tool}</translation>
    </message>
    <message>
        <source>{quote_step} revises it: {quote}</source>
        <translation>{quote_step} 修改了该方案：{quote}</translation>
    </message>
    <message>
        <source>the same action first ran at {first_step}</source>
        <translation>同样的操作最早在 {first_step} 执行过</translation>
    </message>
    <message>
        <source>{step} states {quote}, but no earlier observation shows {value}</source>
        <translation>{step} 声称 {quote}，但此前没有任何观察结果显示 {value}</translation>
    </message>
    <message>
        <source>it states {quote}, but no earlier observation shows {value}</source>
        <translation>它声称 {quote}，但此前没有任何观察结果显示 {value}</translation>
    </message>
    <message>
        <source>the action at {step} fails: the output at {error_step} reads {error_quote}</source>
        <translation>{step} 的操作失败：{error_step} 的输出为 {error_quote}</translation>
    </message>
    <message>
        <source>{step} reports an error: {quote}</source>
        <translation>{step} 报告了错误：{quote}</translation>
    </message>
    <message>
        <source>{step} goes on as if the error at {error_step} had not happened: {error_quote}</source>
        <translation>{step} 继续执行，仿佛 {error_step} 的错误从未发生：{error_quote}</translation>
    </message>
    <message>
        <source>{step} follows the error at {error_step}: {error_quote}</source>
        <translation>{step} 紧接在 {error_step} 的错误之后：{error_quote}</translation>
    </message>
    <message>
        <source>the agent's next step, {next_step}, goes on without addressing it: {next_quote}</source>
        <translation>该智能体的下一步（{next_step}）未处理该错误就继续执行：{next_quote}</translation>
    </message>
    <message>
        <source>the agent's next step, {next_step}, responds: {next_quote}</source>
        <translation>该智能体的下一步（{next_step}）回应：{next_quote}</translation>
    </message>
    <message>
        <source>next, {next_step} says {next_quote}</source>
        <translation>随后 {next_step} 写道 {next_quote}</translation>
    </message>
    <message>
        <source>{step} has no text; the task reads {quote}</source>
        <translation>{step} 没有文本；任务为 {quote}</translation>
    </message>
    <message>
        <source>{step} has no text</source>
        <translation>{step} 没有文本</translation>
    </message>
    <message>
        <source>p={p}</source>
        <translation>p={p}</translation>
    </message>
    <message>
        <source>p={p}, runner-up {runner_step} p={runner_p}</source>
        <translation>p={p}，次优候选 {runner_step} p={runner_p}</translation>
    </message>
    <message>
        <source>uncertain: no step stands out (p={p}); the likeliest are {steps}</source>
        <translation>不确定：没有哪个步骤明显突出（p={p}）；最可能的是{steps}</translation>
    </message>
    <message>
        <source>responsible agent {agent}, {share} of the candidate mass</source>
        <translation>责任智能体 {agent}，占候选概率的 {share}</translation>
    </message>
    <message>
        <source>responsible agent {agent}, which made {share} of the run's actions</source>
        <translation>责任智能体 {agent}，执行了本次运行 {share} 的操作</translation>
    </message>
    <message>
        <source>responsible agent {agent}, the first to run code ({step})</source>
        <translation>责任智能体 {agent}，第一个运行代码的智能体（{step}）</translation>
    </message>
    <message>
        <source>judge re-ranked the top {n}</source>
        <translation>评审模型重新排序了前 {n} 个候选</translation>
    </message>
    <message>
        <source>category from the judge</source>
        <translation>类别来自评审模型</translation>
    </message>
    <message>
        <source>run succeeded</source>
        <translation>运行成功</translation>
    </message>
    <message>
        <source>outcome not recorded: the likeliest decisive step if the run failed</source>
        <translation>结果未记录：若运行失败，这是最可能的决定性步骤</translation>
    </message>
    <message>
        <source>outcome not recorded and nothing in the run shows a failure: the likeliest decisive step only if it failed</source>
        <translation>结果未记录，且运行中没有任何失败迹象：仅当运行失败时，这才是最可能的决定性步骤</translation>
    </message>
    <message>
        <source>outcome not recorded, likely failed (estimated from the run): the likeliest decisive step if it failed</source>
        <translation>结果未记录，据运行估计可能失败：若运行失败，这是最可能的决定性步骤</translation>
    </message>
    <message>
        <source>run has no steps</source>
        <translation>运行没有步骤</translation>
    </message>
    <message>
        <source>run has no agent step (only the task, context or tool output)</source>
        <translation>运行没有智能体步骤（只有任务、上下文或工具输出）</translation>
    </message>
    <message>
        <source>step {n}</source>
        <translation>步骤 {n}</translation>
    </message>
    <message>
        <source>steps {list}</source>
        <translation>步骤 {list}</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>Role</name>
    <message>
        <source>system</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>environment</source>
        <translation>环境</translation>
    </message>
</context>
<context>
    <name>RunPlots</name>
    <message>
        <source>value</source>
        <translation>价值</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>令牌数</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Select a run to plot its value curve.</source>
        <translation>选择一个运行以绘制其价值曲线。</translation>
    </message>
    <message>
        <source>judge value</source>
        <translation>评审价值</translation>
    </message>
    <message>
        <source>task alignment</source>
        <translation>任务对齐</translation>
    </message>
    <message>
        <source>Not analysed yet: Analysis ▸ Analyze selected runs (Ctrl+R) draws the value curve.</source>
        <translation>尚未分析：使用 分析 ▸ 分析所选运行（Ctrl+R）绘制价值曲线。</translation>
    </message>
    <message>
        <source>value {v:.2f}</source>
        <translation>价值 {v:.2f}</translation>
    </message>
    <message>
        <source>drop {d:.2f}</source>
        <translation>下降 {d:.2f}</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>uncertain</source>
        <translation>不确定</translation>
    </message>
    <message>
        <source>decisive</source>
        <translation>决定性</translation>
    </message>
    <message>
        <source>Decisive step labelled in the file</source>
        <translation>文件中标注的决定性步骤</translation>
    </message>
    <message>
        <source>cumulative risk</source>
        <translation>累积风险</translation>
    </message>
    <message>
        <source>check: {kind}</source>
        <translation>检查：{kind}</translation>
    </message>
    <message>
        <source>A cheap {kind} check after this step would have shown the divergence {lead} steps before the failure</source>
        <translation>在此步骤之后进行一次低成本的{kind}检查，就能在失败前 {lead} 步发现偏离</translation>
    </message>
    <message>
        <source>Re-sent although it could have been dropped: ≈ {n} tokens over the later model calls</source>
        <translation>本可省略却被重复发送：在之后的模型调用中约 {n} 个词元</translation>
    </message>
    <message>
        <source>{level}: step {source} → step {target} ({rule})
{evidence}</source>
        <translation>{level}：步骤 {source} → 步骤 {target}（{rule}）
{evidence}</translation>
    </message>
    <message>
        <source>secondary</source>
        <translation>次级</translation>
    </message>
    <message>
        <source>tertiary</source>
        <translation>三级</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已中止</translation>
    </message>
    <message>
        <source>degraded</source>
        <translation>已降级</translation>
    </message>
    <message>
        <source>contained and recovered</source>
        <translation>已控制并恢复</translation>
    </message>
    <message>
        <source>≈ tokens</source>
        <translation>≈ 令牌数</translation>
    </message>
    <message>
        <source>Token counts are missing from the file: estimated as text length / 4</source>
        <translation>文件中缺少令牌数：按文本长度 / 4 估算</translation>
    </message>
</context>
<context>
    <name>RunsPanel</name>
    <message>
        <source>Runs table &amp;columns</source>
        <translation>运行表的列(&amp;C)</translation>
    </message>
    <message>
        <source>{shown} of {total} runs</source>
        <translation>{shown} / {total} 个运行</translation>
    </message>
    <message>
        <source>Reset columns</source>
        <translation>重置列</translation>
    </message>
    <message>
        <source>Show every column in the default order, sized to its content</source>
        <translation>按默认顺序显示所有列，并按内容调整宽度</translation>
    </message>
</context>
<context>
    <name>RunsTable</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Stable content-derived run id</source>
        <translation>由内容生成的稳定运行 ID</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Model that produced the run</source>
        <translation>产生该运行的模型</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Task statement (full text in the tooltip)</source>
        <translation>任务描述（完整文本见提示）</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步骤数</translation>
    </message>
    <message>
        <source>Number of steps</source>
        <translation>步骤数</translation>
    </message>
    <message>
        <source>Decisive</source>
        <translation>决定性步骤</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>The task's first line, else the source's own id of the run</source>
        <translation>任务的第一行；没有任务时为来源自带的运行 ID</translation>
    </message>
    <message>
        <source>success, failure, error or unknown</source>
        <translation>成功、失败、出错或未知</translation>
    </message>
    <message>
        <source>Predicted decisive step (0-based); “? a, b, c”: uncertain, no step stands out (the likeliest steps, best first)</source>
        <translation>预测的决定性步骤（从 0 开始）；“？a, b, c”：不确定，没有哪个步骤明显突出（最可能的步骤，最可能的在前）</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Failure category of the decisive step</source>
        <translation>决定性步骤的失败类别</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Confidence (0-1) in the decisive step</source>
        <translation>决定性步骤的置信度（0–1）</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>“stale”: analysed by an older analysis version (ranker, detectors or judge changed); Analysis ▸ Refresh stale analysis</source>
        <translation>“过期”：由旧的分析版本分析（排序器、检测器或评审模型已变化）；分析 ▸ 刷新过期分析</translation>
    </message>
    <message>
        <source>Task key</source>
        <translation>任务键</translation>
    </message>
    <message>
        <source>Identity of the task across runs: the source's task, sample or instance id, else a hash of the task text (type it in the filter to see every run of the task)</source>
        <translation>任务在各运行间的标识：来源中的任务、样本或实例 ID，否则为任务文本的哈希（在筛选框中输入即可查看该任务的全部运行）</translation>
    </message>
    <message>
        <source>Source file</source>
        <translation>来源文件</translation>
    </message>
    <message>
        <source>File the run was read from, relative to the folder the loaded files share (full path in the tooltip)</source>
        <translation>读取该运行的文件，相对于所有已加载文件的共同文件夹（完整路径见提示）</translation>
    </message>
    <message>
        <source>? {steps}</source>
        <translation>？{steps}</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Analyst categories and custom tags</source>
        <translation>分析员标注的类别和自定义标签</translation>
    </message>
    <message>
        <source>Review</source>
        <translation>审阅</translation>
    </message>
    <message>
        <source>Analyst review status</source>
        <translation>分析员审阅状态</translation>
    </message>
    <message>
        <source>Uncertain: no step stands out; the likeliest are {steps}, best first</source>
        <translation>不确定：没有哪个步骤明显突出；最可能的是{steps}，最可能的在前</translation>
    </message>
    <message>
        <source>Set by the analyst ({mark})</source>
        <translation>由分析员设定（{mark}）</translation>
    </message>
    <message>
        <source>Set by the analyst ({mark}); the analysis said: {value}</source>
        <translation>由分析员设定（{mark}）；分析结果为：{value}</translation>
    </message>
    <message>
        <source>stale</source>
        <translation>过期</translation>
    </message>
    <message>
        <source>Analysed by an older analysis version; Analysis ▸ Refresh stale analysis re-analyses it.</source>
        <translation>由旧的分析版本分析；分析 ▸ 刷新过期分析 会重新分析它。</translation>
    </message>
</context>
<context>
    <name>SearchAllDialog</name>
    <message>
        <source>Search all runs</source>
        <translation>搜索全部运行</translation>
    </message>
    <message>
        <source>Text to find in every run's task and steps…</source>
        <translation>在每个运行的任务和步骤中查找的文本…</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Snippet</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Type to search every loaded run.</source>
        <translation>输入文本以搜索所有已加载的运行。</translation>
    </message>
    <message>
        <source>No run contains “{q}”.</source>
        <translation>没有运行包含“{q}”。</translation>
    </message>
    <message>
        <source>{n} hits in {runs} runs; click one to open it.</source>
        <translation>在 {runs} 个运行中找到 {n} 处；点击一处即可打开。</translation>
    </message>
    <message>
        <source>First {shown} of {n} hits; narrow the search to see the rest.</source>
        <translation>显示 {n} 处中的前 {shown} 处；请缩小搜索范围以查看其余结果。</translation>
    </message>
</context>
<context>
    <name>SearchController</name>
    <message>
        <source>Search &amp;all runs…</source>
        <translation>搜索全部运行(&amp;A)…</translation>
    </message>
    <message>
        <source>List every place a text occurs in any run (run, step, snippet)</source>
        <translation>列出文本在任意运行中出现的每一处（运行、步骤、片段）</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Use sentence embeddings (adds the task-alignment curve; slower the first time)</source>
        <translation>使用句向量（增加任务对齐曲线；首次较慢）</translation>
    </message>
    <message>
        <source>Start background jobs on their own (the judge's value curve of a failed run when you open it)</source>
        <translation>自动启动后台任务（打开失败的运行时计算其评审价值曲线）</translation>
    </message>
    <message>
        <source>Off: such jobs start only when you ask (Analysis ▸ Judge value curve of this run). Every job shows in the status bar's Jobs list, with Cancel.</source>
        <translation>关闭时，此类任务只在您要求时启动（分析 ▸ 此运行的评审价值曲线）。每个任务都显示在状态栏的任务列表中，并可取消。</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Judge model</source>
        <translation>评审模型</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>Background jobs</source>
        <translation>后台任务</translation>
    </message>
    <message>
        <source>bundled default</source>
        <translation>内置默认模型</translation>
    </message>
    <message>
        <source>none (cheap estimator only)</source>
        <translation>无（仅廉价估计器）</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
</context>
<context>
    <name>SideBySideDialog</name>
    <message>
        <source>Two runs side by side</source>
        <translation>两个运行并排比较</translation>
    </message>
    <message>
        <source>(unknown model)</source>
        <translation>（未知模型）</translation>
    </message>
    <message>
        <source>{n} steps</source>
        <translation>{n} 步</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>decisive</source>
        <translation>决定性</translation>
    </message>
    <message>
        <source>Decisive step {s}</source>
        <translation>决定性步骤 {s}</translation>
    </message>
    <message>
        <source>Step {n}</source>
        <translation>步骤 {n}</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <source>suggested</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>已接受</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>decisive</source>
        <translation>决定性</translation>
    </message>
</context>
<context>
    <name>StepCardDelegate</name>
    <message>
        <source>Show more</source>
        <translation>显示更多</translation>
    </message>
    <message>
        <source>Show less</source>
        <translation>收起</translation>
    </message>
    <message>
        <source>DECISIVE</source>
        <translation>决定性</translation>
    </message>
    <message>
        <source>ANALYST: DECISIVE</source>
        <translation>分析员：决定性</translation>
    </message>
    <message>
        <source>+{n}</source>
        <translation>+{n}</translation>
    </message>
    <message>
        <source>suggestion rejected</source>
        <translation>已拒绝建议</translation>
    </message>
    <message>
        <source>CANDIDATE {n}</source>
        <translation>候选 {n}</translation>
    </message>
    <message>
        <source>LABELLED</source>
        <translation>已标注</translation>
    </message>
    <message>
        <source>ERROR</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>{n} tok</source>
        <translation>{n} 令牌</translation>
    </message>
    <message>
        <source>{n} more lines</source>
        <translation>还有 {n} 行</translation>
    </message>
    <message>
        <source>Candidate #{n}: the ranker is uncertain (no step stands out)</source>
        <translation>候选 #{n}：排序器不确定（没有哪个步骤明显突出）</translation>
    </message>
    <message>
        <source>Decisive step (predicted)</source>
        <translation>决定性步骤（预测）</translation>
    </message>
    <message>
        <source>Candidate decisive step #{n}</source>
        <translation>候选决定性步骤 #{n}</translation>
    </message>
    <message>
        <source>Decisive step (analyst)</source>
        <translation>决定性步骤（分析员）</translation>
    </message>
    <message>
        <source>Analyst category: {cat}</source>
        <translation>分析员类别：{cat}</translation>
    </message>
    <message>
        <source>Rejected suggestion: {cat}</source>
        <translation>已拒绝的建议：{cat}</translation>
    </message>
    <message>
        <source>The analyst rejected the suggestion at this step</source>
        <translation>分析员拒绝了此步骤的建议</translation>
    </message>
    <message>
        <source>Tag: {tag}</source>
        <translation>标签：{tag}</translation>
    </message>
    <message>
        <source>Note: {note}</source>
        <translation>备注：{note}</translation>
    </message>
</context>
<context>
    <name>StepKind</name>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>system</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>thought</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>action</source>
        <translation>行动</translation>
    </message>
    <message>
        <source>tool call</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>observation</source>
        <translation>观察</translation>
    </message>
    <message>
        <source>message</source>
        <translation>消息</translation>
    </message>
</context>
<context>
    <name>TaggingController</name>
    <message>
        <source>(nothing yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <source>Cannot open the workspace {path}: {err}</source>
        <translation>无法打开工作区 {path}：{err}</translation>
    </message>
    <message>
        <source>Workspace: {name}</source>
        <translation>工作区：{name}</translation>
    </message>
    <message>
        <source>{path}
Analyst: {author}</source>
        <translation>{path}
分析员：{author}</translation>
    </message>
    <message>
        <source>New workspace</source>
        <translation>新建工作区</translation>
    </message>
    <message>
        <source>TrajScope workspace (*.trajscope)</source>
        <translation>TrajScope 工作区 (*.trajscope)</translation>
    </message>
    <message>
        <source>Open workspace</source>
        <translation>打开工作区</translation>
    </message>
    <message>
        <source>TrajScope workspace (*.trajscope *.db *.sqlite);;All files (*)</source>
        <translation>TrajScope 工作区 (*.trajscope *.db *.sqlite);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Analyst name</source>
        <translation>分析员姓名</translation>
    </message>
    <message>
        <source>Name written with each of your annotations:</source>
        <translation>写入你每条标注的姓名：</translation>
    </message>
    <message>
        <source>Not saved: no workspace is open (File ▸ Open workspace).</source>
        <translation>未保存：没有打开的工作区（文件 ▸ 打开工作区）。</translation>
    </message>
    <message>
        <source>⚠ Not saved</source>
        <translation>⚠ 未保存</translation>
    </message>
    <message>
        <source>Not saved: {err}</source>
        <translation>未保存：{err}</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>✓ Saved {time} · {what}</source>
        <translation>✓ 已于 {time} 保存 · {what}</translation>
    </message>
    <message>
        <source>Nothing to change · {what}</source>
        <translation>无需更改 · {what}</translation>
    </message>
    <message>
        <source>&amp;Undo {action}</source>
        <translation>撤销 {action}(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo {action}</source>
        <translation>重做 {action}(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>Undo the last tagging action</source>
        <translation>撤销上一次标注操作</translation>
    </message>
    <message>
        <source>Redo the last undone tagging action</source>
        <translation>重做上一次撤销的标注操作</translation>
    </message>
    <message>
        <source>Tag as {category}</source>
        <translation>标注为{category}</translation>
    </message>
    <message>
        <source>Tag the selected steps (transcript) or runs (runs table) with this category</source>
        <translation>用此类别标注所选步骤（记录中）或运行（运行表中）</translation>
    </message>
    <message>
        <source>Clear category</source>
        <translation>清除类别</translation>
    </message>
    <message>
        <source>Remove the analyst's category from the selected steps or runs</source>
        <translation>从所选步骤或运行中移除分析员的类别</translation>
    </message>
    <message>
        <source>Mark as &amp;decisive step</source>
        <translation>标记为决定性步骤(&amp;D)</translation>
    </message>
    <message>
        <source>Make the selected step the run's decisive step (overrides the suggestion)</source>
        <translation>将所选步骤设为该运行的决定性步骤（覆盖建议）</translation>
    </message>
    <message>
        <source>&amp;Accept suggestion</source>
        <translation>接受建议(&amp;A)</translation>
    </message>
    <message>
        <source>Accept the judge's suggestion at the current finding or step</source>
        <translation>接受评审模型在当前发现或步骤上的建议</translation>
    </message>
    <message>
        <source>&amp;Reject suggestion</source>
        <translation>拒绝建议(&amp;R)</translation>
    </message>
    <message>
        <source>Reject the judge's suggestion at the current finding or step</source>
        <translation>拒绝评审模型在当前发现或步骤上的建议</translation>
    </message>
    <message>
        <source>Add custom &amp;tag…</source>
        <translation>添加自定义标签(&amp;T)…</translation>
    </message>
    <message>
        <source>Add a custom tag to the selected steps or runs</source>
        <translation>为所选步骤或运行添加自定义标签</translation>
    </message>
    <message>
        <source>&amp;Failed</source>
        <translation>失败(&amp;F)</translation>
    </message>
    <message>
        <source>The selected runs failed (your word wins over the file's)</source>
        <translation>所选运行失败（你的判断优先于文件记录）</translation>
    </message>
    <message>
        <source>&amp;Succeeded</source>
        <translation>成功(&amp;S)</translation>
    </message>
    <message>
        <source>The selected runs succeeded (your word wins over the file's)</source>
        <translation>所选运行成功（你的判断优先于文件记录）</translation>
    </message>
    <message>
        <source>&amp;Unknown</source>
        <translation>未知(&amp;U)</translation>
    </message>
    <message>
        <source>The outcome of the selected runs is not known</source>
        <translation>所选运行的结果未知</translation>
    </message>
    <message>
        <source>Use the &amp;recorded outcome</source>
        <translation>使用记录的结果(&amp;R)</translation>
    </message>
    <message>
        <source>Take back your outcome of the selected runs</source>
        <translation>撤回你为所选运行设定的结果</translation>
    </message>
    <message>
        <source>Review &amp;queue</source>
        <translation>审阅队列(&amp;Q)</translation>
    </message>
    <message>
        <source>Walk the judge's suggestions one by one</source>
        <translation>逐条审阅评审模型的建议</translation>
    </message>
    <message>
        <source>&amp;New workspace…</source>
        <translation>新建工作区(&amp;N)…</translation>
    </message>
    <message>
        <source>Start an empty workspace file for annotations</source>
        <translation>新建一个空的标注工作区文件</translation>
    </message>
    <message>
        <source>Open &amp;workspace…</source>
        <translation>打开工作区(&amp;W)…</translation>
    </message>
    <message>
        <source>Open a workspace file with annotations</source>
        <translation>打开包含标注的工作区文件</translation>
    </message>
    <message>
        <source>Analyst &amp;name…</source>
        <translation>分析员姓名(&amp;N)…</translation>
    </message>
    <message>
        <source>Name written with every annotation</source>
        <translation>写入每条标注的姓名</translation>
    </message>
    <message>
        <source>&amp;Report and tables…</source>
        <translation>报告和表格(&amp;R)…</translation>
    </message>
    <message>
        <source>Export CSV/Parquet tables and the annotated HTML, PDF and Markdown report</source>
        <translation>导出 CSV/Parquet 表格以及带标注的 HTML、PDF 和 Markdown 报告</translation>
    </message>
    <message>
        <source>&amp;Annotations as JSONL…</source>
        <translation>标注导出为 JSONL(&amp;A)…</translation>
    </message>
    <message>
        <source>Share your annotations with another analyst</source>
        <translation>与其他分析员共享你的标注</translation>
    </message>
    <message>
        <source>&amp;Import annotations…</source>
        <translation>导入标注(&amp;I)…</translation>
    </message>
    <message>
        <source>Merge another analyst's annotations (JSONL) and review conflicts</source>
        <translation>合并其他分析员的标注（JSONL）并审阅冲突</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>Tag &amp;selection as</source>
        <translation>将所选项标注为(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Outcome of the selected runs</source>
        <translation>所选运行的结果(&amp;O)</translation>
    </message>
    <message>
        <source>Tag all runs &amp;matching the filter as</source>
        <translation>将符合筛选条件的所有运行标注为(&amp;M)</translation>
    </message>
    <message>
        <source>Recent workspaces</source>
        <translation>最近的工作区</translation>
    </message>
    <message>
        <source>The last workspace {missing} no longer exists; opened {path} instead.</source>
        <translation>上次使用的工作区 {missing} 已不存在；已改为打开 {path}。</translation>
    </message>
    <message>
        <source>1 run</source>
        <translation>1 个运行</translation>
    </message>
    <message>
        <source>{n} runs</source>
        <translation>{n} 个运行</translation>
    </message>
    <message>
        <source>1 step</source>
        <translation>1 个步骤</translation>
    </message>
    <message>
        <source>{n} steps</source>
        <translation>{n} 步</translation>
    </message>
    <message>
        <source>Select runs in the table or steps in the transcript first.</source>
        <translation>请先在表格中选择运行，或在记录中选择步骤。</translation>
    </message>
    <message>
        <source>no category</source>
        <translation>无类别</translation>
    </message>
    <message>
        <source>Tagged {targets} as {category}</source>
        <translation>已将 {targets} 标注为{category}</translation>
    </message>
    <message>
        <source>No run matches the current filter.</source>
        <translation>没有运行符合当前筛选条件。</translation>
    </message>
    <message>
        <source>Tagged {n} runs matching the filter as {category}</source>
        <translation>已将 {n} 个符合筛选条件的运行标注为{category}</translation>
    </message>
    <message>
        <source>Select a step in the transcript first.</source>
        <translation>请先在记录中选择一个步骤。</translation>
    </message>
    <message>
        <source>Step {step} marked as the decisive step</source>
        <translation>步骤 {step} 已标记为决定性步骤</translation>
    </message>
    <message>
        <source>There is no judge suggestion here to accept.</source>
        <translation>这里没有可接受的评审建议。</translation>
    </message>
    <message>
        <source>Accepted 1 suggestion</source>
        <translation>已接受 1 条建议</translation>
    </message>
    <message>
        <source>Accepted {n} suggestions</source>
        <translation>已接受 {n} 条建议</translation>
    </message>
    <message>
        <source>There is no judge suggestion here to reject.</source>
        <translation>这里没有可拒绝的评审建议。</translation>
    </message>
    <message>
        <source>Rejected 1 suggestion</source>
        <translation>已拒绝 1 条建议</translation>
    </message>
    <message>
        <source>Rejected {n} suggestions</source>
        <translation>已拒绝 {n} 条建议</translation>
    </message>
    <message>
        <source>Select runs in the table first.</source>
        <translation>请先在表格中选择运行。</translation>
    </message>
    <message>
        <source>{runs}: back to the recorded outcome</source>
        <translation>{runs}：恢复为记录的结果</translation>
    </message>
    <message>
        <source>{runs} marked as {outcome}</source>
        <translation>{runs} 已标记为{outcome}</translation>
    </message>
    <message>
        <source>Tag “{tag}” added to {targets}</source>
        <translation>已为 {targets} 添加标签“{tag}”</translation>
    </message>
    <message>
        <source>Tag “{tag}” removed</source>
        <translation>已移除标签“{tag}”</translation>
    </message>
    <message>
        <source>Note saved</source>
        <translation>备注已保存</translation>
    </message>
    <message>
        <source>Add custom tag</source>
        <translation>添加自定义标签</translation>
    </message>
    <message>
        <source>Tag for {targets}:</source>
        <translation>{targets} 的标签：</translation>
    </message>
    <message>
        <source>Undo failed: {err}</source>
        <translation>撤销失败：{err}</translation>
    </message>
    <message>
        <source>Undid {action}</source>
        <translation>已撤销 {action}</translation>
    </message>
    <message>
        <source>Redo failed: {err}</source>
        <translation>重做失败：{err}</translation>
    </message>
    <message>
        <source>Redid {action}</source>
        <translation>已重做 {action}</translation>
    </message>
    <message>
        <source>Export annotations</source>
        <translation>导出标注</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl)</source>
        <translation>JSON Lines (*.jsonl)</translation>
    </message>
    <message>
        <source>Could not export annotations: {err}</source>
        <translation>无法导出标注：{err}</translation>
    </message>
    <message>
        <source>Exported {n} annotations to {path}.</source>
        <translation>已将 {n} 条标注导出到 {path}。</translation>
    </message>
    <message>
        <source>Import annotations</source>
        <translation>导入标注</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl);;All files (*)</source>
        <translation>JSON Lines (*.jsonl);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Imported annotations from {name}</source>
        <translation>已从 {name} 导入标注</translation>
    </message>
    <message>
        <source>Tagging desk</source>
        <translation>标注台</translation>
    </message>
    <message>
        <source>Insights</source>
        <translation>洞察</translation>
    </message>
</context>
<context>
    <name>TaggingDesk</name>
    <message>
        <source>Review queue</source>
        <translation>审阅队列</translation>
    </message>
    <message>
        <source>Skip reviewed</source>
        <translation>跳过已审阅</translation>
    </message>
    <message>
        <source>Move only between suggestions you have not decided yet</source>
        <translation>只在尚未决定的建议之间移动</translation>
    </message>
    <message>
        <source>Failed runs only</source>
        <translation>仅失败的运行</translation>
    </message>
    <message>
        <source>Queue only runs whose outcome is not a success</source>
        <translation>只将结果不是成功的运行加入队列</translation>
    </message>
    <message>
        <source>What the queue walks, in which order</source>
        <translation>队列审阅的内容和顺序</translation>
    </message>
    <message>
        <source>Decisive steps first, then findings</source>
        <translation>先决定性步骤，再其他发现</translation>
    </message>
    <message>
        <source>Run by run</source>
        <translation>逐个运行</translation>
    </message>
    <message>
        <source>Decisive steps only</source>
        <translation>仅决定性步骤</translation>
    </message>
    <message>
        <source>Most informative first</source>
        <translation>信息量最大的优先</translation>
    </message>
    <message>
        <source>Runs whose decisive step the ranker is least sure of come first (its probabilities spread over many steps): labelling them teaches the adapted ranker most. Off: the runs table's order.</source>
        <translation>排序器最没有把握的运行排在前面（其概率分散在许多步骤上）：标注它们对适配排序器的帮助最大。关闭时按运行表的顺序。</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>返回</translation>
    </message>
    <message>
        <source>Previous suggestion (←)</source>
        <translation>上一条建议（←）</translation>
    </message>
    <message>
        <source>Accept (A)</source>
        <translation>接受 (A)</translation>
    </message>
    <message>
        <source>The judge is right</source>
        <translation>评审模型是对的</translation>
    </message>
    <message>
        <source>Reject (R)</source>
        <translation>拒绝 (R)</translation>
    </message>
    <message>
        <source>The judge is wrong here</source>
        <translation>评审模型在这里错了</translation>
    </message>
    <message>
        <source>Decisive (D)</source>
        <translation>决定性 (D)</translation>
    </message>
    <message>
        <source>Accept and make this the run's decisive step</source>
        <translation>接受并设为该运行的决定性步骤</translation>
    </message>
    <message>
        <source>Skip (S)</source>
        <translation>跳过 (S)</translation>
    </message>
    <message>
        <source>Decide later (S or →)</source>
        <translation>稍后决定（S 或 →）</translation>
    </message>
    <message>
        <source>The failure is real but of another category (keys 1-9, 0)</source>
        <translation>确实是失败，但属于另一个类别（按键 1–9、0）</translation>
    </message>
    <message>
        <source>Relabel as…</source>
        <translation>重新标注为…</translation>
    </message>
    <message>
        <source>A accept · R reject · D decisive · S/→ skip · ← back · Ctrl+Z undo</source>
        <translation>A 接受 · R 拒绝 · D 决定性 · S/→ 跳过 · ← 返回 · Ctrl+Z 撤销</translation>
    </message>
    <message>
        <source>Judge vs analyst</source>
        <translation>评审模型与分析员对比</translation>
    </message>
    <message>
        <source>Whose reviews to compare with the judge</source>
        <translation>与评审模型比较的审阅者</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>κ</source>
        <translation>κ</translation>
    </message>
    <message>
        <source>Judge</source>
        <translation>评审模型</translation>
    </message>
    <message>
        <source>Analyst</source>
        <translation>分析员</translation>
    </message>
    <message>
        <source>Both</source>
        <translation>双方</translation>
    </message>
    <message>
        <source>Confusion matrix (rows: judge, columns: analyst; category keys as above)</source>
        <translation>混淆矩阵（行：评审模型，列：分析员；类别按键同上）</translation>
    </message>
    <message>
        <source>{queued} of {total} runs (the runs table's filter)</source>
        <translation>{queued} / {total} 个运行（运行表的筛选）</translation>
    </message>
    <message>
        <source>{done} of {n} reviewed</source>
        <translation>已审阅 {done} / {n}</translation>
    </message>
    <message>
        <source>No suggestions to review. Analyse runs first (Analysis ▸ Analyze all runs), or widen the runs table's filter.</source>
        <translation>没有待审阅的建议。请先分析运行（分析 ▸ 分析全部运行），或放宽运行表的筛选条件。</translation>
    </message>
    <message>
        <source>not reviewed yet</source>
        <translation>尚未审阅</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>已接受</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>relabelled</source>
        <translation>已重新标注</translation>
    </message>
    <message>
        <source>relabelled as {category}</source>
        <translation>已重新标注为{category}</translation>
    </message>
    <message>
        <source>Suggested decisive step</source>
        <translation>建议的决定性步骤</translation>
    </message>
    <message>
        <source>Finding</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>run {id}</source>
        <translation>运行 {id}</translation>
    </message>
    <message>
        <source>step {n}</source>
        <translation>步骤 {n}</translation>
    </message>
    <message>
        <source>score {s:.2f}</source>
        <translation>得分 {s:.2f}</translation>
    </message>
    <message>
        <source>uncertain: {steps}</source>
        <translation>不确定：{steps}</translation>
    </message>
    <message>
        <source>decisive step</source>
        <translation>决定性步骤</translation>
    </message>
    <message>
        <source>Task:</source>
        <translation>任务：</translation>
    </message>
    <message>
        <source>Why:</source>
        <translation>依据：</translation>
    </message>
    <message>
        <source>Step {n}</source>
        <translation>步骤 {n}</translation>
    </message>
    <message>
        <source>End of the review queue: {done} of {n} suggestions reviewed.</source>
        <translation>审阅队列已结束：已审阅 {done} / {n} 条建议。</translation>
    </message>
    <message>
        <source>(you)</source>
        <translation>（你）</translation>
    </message>
    <message>
        <source>No reviewed runs with a judge attribution yet. Accept, reject or relabel suggestions in the queue, or tag failed runs, to measure agreement.</source>
        <translation>还没有带评审归因的已审阅运行。请在队列中接受、拒绝或重新标注建议，或为失败的运行打标签，以衡量一致性。</translation>
    </message>
    <message>
        <source>Cohen’s κ</source>
        <translation>Cohen κ 系数</translation>
    </message>
    <message>
        <source>{n} runs compared</source>
        <translation>已比较 {n} 个运行</translation>
    </message>
    <message>
        <source>observed agreement</source>
        <translation>观察一致率</translation>
    </message>
    <message>
        <source>same decisive step</source>
        <translation>决定性步骤相同</translation>
    </message>
    <message>
        <source>Undefined: only one side used this category, or every run has it</source>
        <translation>无定义：只有一方使用了此类别，或每个运行都有此类别</translation>
    </message>
    <message>
        <source>analyst: {category}</source>
        <translation>分析员：{category}</translation>
    </message>
    <message>
        <source>judge: {category}</source>
        <translation>评审：{category}</translation>
    </message>
    <message>
        <source>judge {j}, analyst {a}: {n} runs</source>
        <translation>评审 {j}，分析员 {a}：{n} 个运行</translation>
    </message>
</context>
<context>
    <name>Taxonomy</name>
    <message>
        <source>Planning error</source>
        <translation>规划错误</translation>
    </message>
    <message>
        <source>Goal drift</source>
        <translation>目标漂移</translation>
    </message>
    <message>
        <source>Evidence-to-action gap</source>
        <translation>证据-行动脱节</translation>
    </message>
    <message>
        <source>Error accumulation</source>
        <translation>错误累积</translation>
    </message>
    <message>
        <source>Repeated action</source>
        <translation>重复操作</translation>
    </message>
    <message>
        <source>Failed recovery</source>
        <translation>恢复失败</translation>
    </message>
    <message>
        <source>False success</source>
        <translation>虚假成功</translation>
    </message>
    <message>
        <source>Hallucination</source>
        <translation>幻觉</translation>
    </message>
    <message>
        <source>Environment failure</source>
        <translation>环境故障</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>The plan or decomposition was wrong, a needed constraint was ignored, or the wrong tool/approach was chosen.</source>
        <translation>计划或任务分解有误、忽略了必要的约束，或选择了错误的工具/方法。</translation>
    </message>
    <message>
        <source>The agent stops serving the stated task and serves a goal it invented or a side quest.</source>
        <translation>智能体不再服务于给定任务，转而追求自己设想的目标或支线任务。</translation>
    </message>
    <message>
        <source>The needed fact was already in an observation, but the next actions ignore or contradict it.</source>
        <translation>所需事实已出现在某次观察中，但随后的行动忽略或违背了它。</translation>
    </message>
    <message>
        <source>An early mistake is carried forward and later steps build on it (self-conditioning).</source>
        <translation>早期错误被延续下去，后续步骤建立在其之上（自我条件化）。</translation>
    </message>
    <message>
        <source>The same action (or a near-duplicate) is repeated without progress.</source>
        <translation>同一操作（或几乎相同的操作）被重复执行却没有进展。</translation>
    </message>
    <message>
        <source>An error or unexpected observation is not handled: retried unchanged, ignored, or misdiagnosed.</source>
        <translation>错误或意外观察未被妥善处理：原样重试、被忽略或被误诊。</translation>
    </message>
    <message>
        <source>The agent claims success or terminates without verification, while the outcome is a failure.</source>
        <translation>智能体未经验证就宣称成功或终止，而实际结果是失败。</translation>
    </message>
    <message>
        <source>Invented facts, tool results or actions that did not happen.</source>
        <translation>编造了事实、工具结果或并未发生的操作。</translation>
    </message>
    <message>
        <source>Not the agent's fault: tool/API/infra error, timeout, rate limit, missing resource.</source>
        <translation>并非智能体的过错：工具/API/基础设施错误、超时、限流、资源缺失。</translation>
    </message>
    <message>
        <source>None of the above (free-text reason required).</source>
        <translation>以上都不是（需要填写原因）。</translation>
    </message>
</context>
<context>
    <name>TranscriptView</name>
    <message>
        <source>Find in this run…</source>
        <translation>在此运行中查找…</translation>
    </message>
    <message>
        <source>Search this run's steps (Ctrl+F); Enter jumps to the next match, Shift+Enter to the previous</source>
        <translation>搜索此运行的步骤（Ctrl+F）；Enter 跳到下一个匹配，Shift+Enter 跳到上一个</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个匹配（Shift+Enter）</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>下一个匹配（Enter）</translation>
    </message>
    <message>
        <source>Expand all</source>
        <translation>全部展开</translation>
    </message>
    <message>
        <source>Unfold every step card</source>
        <translation>展开所有步骤卡片</translation>
    </message>
    <message>
        <source>Collapse all</source>
        <translation>全部折叠</translation>
    </message>
    <message>
        <source>Fold every step card</source>
        <translation>折叠所有步骤卡片</translation>
    </message>
    <message>
        <source>J/K step · N/P finding</source>
        <translation>J/K 步骤 · N/P 发现</translation>
    </message>
    <message>
        <source>Keyboard: J next step, K previous step, N next finding, P previous finding</source>
        <translation>键盘：J 下一步，K 上一步，N 下一个发现，P 上一个发现</translation>
    </message>
    <message>
        <source>Select a run in the table to read its transcript.

Open traces with File ▸ Open, or drop files and folders on the window.</source>
        <translation>在表格中选择一个运行以阅读其记录。

通过 文件 ▸ 打开 打开轨迹，或将文件和文件夹拖放到窗口上。</translation>
    </message>
    <message>
        <source>Transcript</source>
        <translation>记录</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>{n} steps</source>
        <translation>{n} 步</translation>
    </message>
    <message>
        <source>decisive step {step}</source>
        <translation>决定性步骤 {step}</translation>
    </message>
    <message>
        <source>uncertain: {steps}</source>
        <translation>不确定：{steps}</translation>
    </message>
    <message>
        <source>analyst: step {step}</source>
        <translation>分析员：第 {step} 步</translation>
    </message>
    <message>
        <source>no match</source>
        <translation>无匹配</translation>
    </message>
    <message>
        <source>{n} matches</source>
        <translation>{n} 个匹配</translation>
    </message>
    <message>
        <source>{i} of {n}</source>
        <translation>第 {i} 个，共 {n} 个</translation>
    </message>
</context>
<context>
    <name>Workers</name>
    <message>
        <source>loading the judge model</source>
        <translation>正在加载评审模型</translation>
    </message>
    <message>
        <source>loading the embedder</source>
        <translation>正在加载嵌入模型</translation>
    </message>
    <message>
        <source>waiting for another judge job to finish</source>
        <translation>正在等待另一个评审任务完成</translation>
    </message>
    <message>
        <source>asking the judge whether each run achieved its task</source>
        <translation>正在询问评审模型每个运行是否完成了任务</translation>
    </message>
</context>
</TS>
